// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import ToastProtocol

extension Toastctl {
    /// `toastctl count`, as `dunstctl count`: how many are shown, waiting, and in history.
    struct Count: ParsableCommand {
        enum What: String, ExpressibleByArgument, CaseIterable {
            case displayed, waiting, history
        }

        static let configuration = CommandConfiguration(
            commandName: "count",
            abstract: "How many toasts are displayed, waiting, and in history (as dunstctl count).",
            discussion: "With one of displayed, waiting or history, that number alone, for scripts."
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "displayed, waiting or history.", completion: .list(What.allCases.map(\.rawValue))) var what: What?

        func run() throws {
            let status = try client.perform(WireEncoder.request(.status))
            let numbers: [What: Int64] = [
                .displayed: status["shown"]?.intValue ?? 0, .waiting: status["queued"]?.intValue ?? 0, .history: status["history"]?.intValue ?? 0,
            ]
            let result: JSONValue = ["displayed": .int(numbers[.displayed]!), "waiting": .int(numbers[.waiting]!), "history": .int(numbers[.history]!)]
            client.output(what.map { ["count": .int(numbers[$0]!)] } ?? result) {
                if let what { return "\(numbers[what]!)" }
                return "Waiting: \(numbers[.waiting]!)\nCurrently displayed: \(numbers[.displayed]!)\nHistory: \(numbers[.history]!)"
            }
        }
    }
}
