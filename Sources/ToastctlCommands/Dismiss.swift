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
            commandName: "dismiss", abstract: "Dismiss a toast (as a person); refused if it is not dismissible.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "The toast's id.") var id: UInt64?
        @OptionGroup var target: LatestTargetOptions
        func validate() throws { try target.validate(id: id) }
        func run() throws { try client.performPrintingID(.command(.dismiss(target.target(id: id, client: client).0))) }
    }
}
