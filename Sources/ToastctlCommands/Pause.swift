// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Do not disturb: hold back new toasts below a level until resume.",
            discussion: """
                Levels run from 1 to 100 (default: the configured one, 50). A toast whose level is at \
                least the pause level still shows: by default failures (level 80) do. --level 100 holds \
                everything but toasts a rule or their sender put at 100.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "Hold back toasts below this level (1-100).") var level: Int?
        @Flag(help: "Resume if paused, else pause.") var toggle = false

        func validate() throws {
            if let level, !ConfigurationLimits.pauseLevel.contains(level) {
                throw ValidationError("--level is \(ConfigurationLimits.pauseLevel.lowerBound) to \(ConfigurationLimits.pauseLevel.upperBound)")
            }
        }

        func run() throws {
            let request: Request = toggle ? .togglePause(level: level) : .command(.pause(level: level))
            let result = try client.perform(WireEncoder.request(request))
            client.output(result) { Self.describe(result) }
        }

        static func describe(_ result: JSONValue) -> String {
            let level = result["level"]?.intValue ?? 0
            return level > 0 ? "paused at level \(level)" : "resumed"
        }
    }
}
