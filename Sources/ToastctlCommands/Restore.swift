// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    /// `toastctl restore [ID | --latest]`: a toast from the history, shown again.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Show a toast from the history again, as a new toast (its actions are dropped).",
            discussion: "Prints the new toast's id. The entry leaves the history until the new toast ends."
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "The id the toast had.") var id: UInt64?
        @Flag(help: "The toast that ended last.") var latest = false

        func validate() throws {
            if (id == nil) == !latest { throw ValidationError("Give the toast's id or --latest (one of them).") }
        }

        func run() throws {
            try client.performPrintingID(.restore(id.map { ToastID($0) }))
        }
    }
}
