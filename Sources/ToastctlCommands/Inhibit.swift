// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Inhibit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inhibit",
            abstract: "Hold do not disturb while a command runs.",
            discussion: """
                toastctl inhibit -- CMD holds an inhibitor on its connection to toastd, runs CMD, and \
                exits with its status. The inhibitor ends when the connection closes, however toastctl \
                ends (even kill -9). Without a command it holds until interrupted.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "Why (shown in status, status --json and the waybar tooltip).") var reason: String?
        @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.") var command: [String] = []

        func run() throws {
            let connection: ToastConnection
            do {
                connection = try ToastConnection(path: client.socketPath)
            } catch {
                guard !command.isEmpty else {
                    printError("toastctl: \(error)")
                    throw ExitCode(3)
                }
                // Nothing to hold back; the command still runs, as `toastctl run` does.
                printError("toastctl: \(error); running \(Run.shellQuoted(command)) without an inhibitor")
                throw ExitCode(try Run.spawnAndWait(command, forwardingSignals: true).status)
            }
            let why = reason ?? (command.first.map { "toastctl inhibit \($0)" } ?? "toastctl inhibit")
            _ = try client.perform(WireEncoder.request(.inhibit(reason: why)), on: connection)
            guard !command.isEmpty else {
                // Until a signal ends this process; the kernel closes the connection.
                while true { pause() }
            }
            let status = try Run.spawnAndWait(command, forwardingSignals: true).status
            withExtendedLifetime(connection) {}
            throw ExitCode(status)
        }
    }
}
