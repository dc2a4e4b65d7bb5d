// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Raw: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "raw", abstract: "Send one JSON request line and print the reply line.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "The request, e.g. '{\"op\":\"status\"}'.") var line: String
        func run() throws {
            let connection = try client.connect()
            do {
                try connection.sendLine(Array(line.utf8))
                let reply = try connection.readReply()
                print(reply.serialized)
                if case .failure = WireDecoder.reply(reply) { throw ExitCode(1) }
            } catch let failure as ToastConnection.Failure {
                printError("toastctl: \(failure)")
                throw ExitCode(1)
            }
        }
    }
}
