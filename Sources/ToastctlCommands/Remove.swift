// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "End a toast (as its program).")
        @OptionGroup var client: ClientOptions
        @OptionGroup var target: TargetOptions
        func run() throws { try client.performPrintingID(.command(.remove(target.target))) }
    }
}
