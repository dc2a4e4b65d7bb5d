// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Subscribe and print events as they happen, one per line.",
            discussion: """
                When toastd goes away, watch reconnects (0.25 s doubling to 5 s) and resumes where it \
                stopped: the events it missed are printed, or a fresh snapshot if toastd no longer holds \
                them. It stops on SIGINT or SIGTERM.
                """
        )
        @OptionGroup var client: ClientOptions
        @OptionGroup var only: FilterOptions
        func run() throws {
            var machine = SubscriptionStateMachine(filter: only.filter)
            let stop = ResumingSubscriber.run(
                path: client.socketPath, machine: &machine,
                onWait: { milliseconds, reason in printError("toastctl: \(reason); retrying in \(Double(milliseconds) / 1000) s") }
            ) { line, value in
                if case .reply = line { return }
                printLine(client.json ? value.serialized : Terminal.describe(line))
            }
            try ClientOptions.exit(for: stop)
        }
    }
}
