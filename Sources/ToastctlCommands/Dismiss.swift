// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Dismiss: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss", abstract: "Dismiss a toast (as a person); refused if it is not dismissible.",
            discussion: "With no ID, the toast shown last (as `dunstctl close` and `makoctl dismiss` do); --latest says the same.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "The toast's id (default: the toast shown last).") var id: UInt64?
        @OptionGroup var target: LatestTargetOptions
        /// Nothing named: the newest.
        var named: LatestTargetOptions {
            var named = target
            if id == nil && target.reuseID == nil { named.latest = true }
            return named
        }
        func validate() throws { try named.validate(id: id) }
        func run() throws { try client.performPrintingID(.command(.dismiss(named.target(id: id, client: client).0))) }
    }
}
