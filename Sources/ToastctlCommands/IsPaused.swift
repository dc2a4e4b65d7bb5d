// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct IsPaused: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "is-paused",
            abstract: "Exit 0 when do not disturb holds toasts back (a pause or an inhibitor), else 1.",
            discussion: "For scripts: `if toastctl is-paused; then ...`. Prints true or false, as `dunstctl is-paused` does, unless --quiet; --json has the level."
        )
        @OptionGroup var client: ClientOptions
        @Flag(name: .shortAndLong, help: "Print nothing.") var quiet = false
        func run() throws {
            let status = try client.perform(WireEncoder.request(.status))
            let level = status["pauseLevel"]?.intValue ?? 0
            if !quiet { client.output(status) { level > 0 ? "true" : "false" } }
            if level == 0 { throw ExitCode(1) }
        }
    }
}
