// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Mode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mode",
            abstract: "List the active modes, or change them (rules match modes).",
            discussion: """
                toastctl mode                   the active modes, one a line
                toastctl mode set A B           exactly these (none: `mode set`)
                toastctl mode add|remove|toggle NAME
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "set, add, remove or toggle; nothing lists.", completion: .list(["set", "add", "remove", "toggle"])) var action: String?
        @Argument(help: "The mode names (the configuration's declared modes complete).", completion: .custom { _, _, _ in Mode.declaredModes() })
        var names: [String] = []

        /// The modes the running toastd's configuration declares, for shell completion.
        static func declaredModes() -> [String] {
            guard case .array(let modes)? = ClientOptions.runningStatus()?["knownModes"] else { return [] }
            return modes.compactMap(\.stringValue)
        }

        func validate() throws {
            switch action {
            case nil:
                if !names.isEmpty { throw ValidationError("give set, add, remove or toggle before the names") }
            case "set"?:
                break
            case "add"?, "remove"?, "toggle"?:
                if names.count != 1 { throw ValidationError("\(action!) takes one mode name") }
            case let other?:
                throw ValidationError("unknown mode action '\(other)'; expected set, add, remove or toggle")
            }
        }

        func run() throws {
            let change: Request.ModeChange =
                switch action {
                case "set"?: .set(names)
                case "add"?: .add(names[0])
                case "remove"?: .remove(names[0])
                case "toggle"?: .toggle(names[0])
                default: .list
                }
            let result = try client.perform(WireEncoder.request(.mode(change)))
            client.output(result) {
                guard case .array(let modes)? = result["modes"] else { return "" }
                return modes.compactMap { $0.stringValue.map(Terminal.sanitize) }.joined(separator: "\n")
            }
        }
    }
}
