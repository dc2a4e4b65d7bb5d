// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Show what waited, in order.")
        @OptionGroup var client: ClientOptions
        func run() throws {
            let result = try client.perform(WireEncoder.request(.command(.resume)))
            client.output(result) { Pause.describe(result) }
        }
    }
}
