// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract: "Make toastd read its configuration file again.",
            discussion: """
                Prints how many rules are in force. A refused file prints each problem with its line and \
                column and exits 1; toastd keeps the configuration it had.
                """
        )
        @OptionGroup var client: ClientOptions
        func run() throws {
            let result = try client.perform(WireEncoder.request(.reload))
            client.output(result) {
                let path = result["path"]?.stringValue ?? "no file (the defaults)"
                var text = "reloaded \(path): \(result["rules"]?.intValue ?? 0) rules"
                if case .array(let notes)? = result["notes"] {
                    text += notes.compactMap(\.stringValue).map { "\nnote: \($0)" }.joined()
                }
                return text
            }
        }
    }
}
