// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "End every dismissible toast of a scene, an alignment, or all.")
        @OptionGroup var client: ClientOptions
        @Option(help: "Only this scene.") var scene: String?
        @Option(help: "Only this alignment: top, center or bottom.", completion: .list(ToastAlignment.allCases.map(\.rawValue)))
        var alignment: ToastAlignment?
        @Flag(help: "Also end toasts that are not dismissible.") var force = false
        func run() throws {
            let scope = ClearScope(scene: scene, alignment: alignment, force: force)
            let result = try client.perform(WireEncoder.request(.command(.clear(scope))))
            client.output(result) { "cleared \(result["cleared"]?.intValue ?? 0), kept \(result["kept"]?.intValue ?? 0)" }
        }
    }
}
