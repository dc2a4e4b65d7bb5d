// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastConfig
import ToastCore
@_spi(Benchmarks) import ToastRegex

#if canImport(Glibc)
import Glibc
#endif

/// The rules engine's cost: a 20-rule configuration, the shape a real
/// user's file has (globs on sources and text, roles, scenes, modes, two
/// regular expressions), and the regex matcher against glibc's on the
/// patterns that make matchers slow.
public enum RulesBenchmark {
    /// Twenty rules, several of which match the ingest workload's toasts.
    public static let twentyRules = """
        modes = ["presentation", "focus"]

        [roles.failure]
        duration = "long"

        [[rule]]
        match = { source = "ci*" }
        set = { icon = "ci" }

        [[rule]]
        match = { source = "toast-bench*", role = "failure" }
        set = { level = 90 }

        [[rule]]
        match = { title = "CI" }
        set = { icon = "tools" }

        [[rule]]
        match = { message = "build *-1?? finished*" }
        set = { scene = "s1" }

        [[rule]]
        match = { message_regex = "finished in [0-9]+ s$" }
        set = { dismissible = true }

        [[rule]]
        match = { message_regex = "(error|fail(ed|ure))" }
        set = { role = "failure" }

        [[rule]]
        match = { scene = "s3", role = "info" }
        set = { alignment = "bottom" }

        [[rule]]
        match = { mode = "presentation" }
        drop = true

        [[rule]]
        match = { mode = "focus", role = "plain" }
        drop = true

        [[rule]]
        match = { source = "chatty-app" }
        drop = true

        [[rule]]
        match = { source = "spotify*" }
        set = { duration = "short" }

        [[rule]]
        match = { alignment = "center", role = "success" }
        set = { duration = 1.5 }

        [[rule]]
        match = { role = "warning" }
        set = { level = 60 }

        [[rule]]
        match = { title_regex = "^(Deploy|Release)" }
        set = { role = "warning" }

        [[rule]]
        match = { message = "*password*" }
        set = { scene = "private" }

        [[rule]]
        match = { source = "backup*" }
        set = { alignment = "bottom" }

        [[rule]]
        match = { app = "firefox*" }
        set = { icon = "web" }

        [[rule]]
        match = { scene = "s0", alignment = "top" }
        set = { icon = "zero" }

        [[rule]]
        match = { message = "build *" }
        set = { level = 10 }

        [[rule]]
        match = { role = "success", message = "*in 9?? s" }
        set = { duration = "short" }
        """

    public struct RegexRow: Sendable {
        public var pattern: String
        public var textBytes: Int
        /// Microseconds per match: the sets of states alone (the machine
        /// before its table), the machine alone (the table where there is
        /// one: what a text holding the pattern's literals costs), then as
        /// `matches` runs (with the literal prefilter), then glibc.
        public var sets: Double
        public var machine: Double
        public var bounded: Double
        public var glibc: Double
    }

    /// Each pattern against a text of `bytes` that it does not match (the
    /// slow case for a search): microseconds per match, ours and glibc's.
    public static func regexes(bytes: Int, rounds: Int) throws -> [RegexRow] {
        let patterns = ["finished in [0-9]+ s$", "(error|fail(ed|ure))", "^(a+)+$", "(a|aa)*b", "((a|b)*c)*d"]
        let text = String(repeating: "a", count: bytes - 1) + "!"
        var rows: [RegexRow] = []
        for pattern in patterns {
            let regex = try BoundedRegex(pattern)
            var compiled = regex_t()
            guard regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0 else { throw BenchError("glibc refused \(pattern)") }
            defer { regfree(&compiled) }
            var hits = 0
            let sets = Samples(time(rounds: rounds) { if regex.matchesBySets(text) { hits += 1 } })
            let machine = Samples(time(rounds: rounds) { if regex.matchesByMachine(text) { hits += 1 } })
            let ours = Samples(time(rounds: rounds) { if regex.matches(text) { hits += 1 } })
            let theirs = Samples(time(rounds: rounds) { if regexec(&compiled, text, 0, nil, 0) == 0 { hits += 1 } })
            rows.append(
                RegexRow(
                    pattern: pattern, textBytes: bytes, sets: sets.median * 1_000, machine: machine.median * 1_000, bounded: ours.median * 1_000,
                    glibc: theirs.median * 1_000
                )
            )
        }
        return rows
    }

    /// Microseconds to put one of the ingest workload's toasts through the
    /// twenty rules (decoded once; only `apply` is timed): median of rounds
    /// of `count` toasts.
    public static func applyCost(count: Int, rounds: Int) throws -> Double {
        let rules = try ToastdConfig.parse(twentyRules).get().rules
        let workload = Workload()
        let toasts: [Toast] = try (0..<count).map { index in
            let line = workload.addLine(stream: 0, index: index)
            guard case .success(let envelope) = WireDecoder.decode(line: line), case .command(.add(var toast)) = envelope.request
            else { throw BenchError("the workload's line \(index) is not an add") }
            toast.source = "toast-bench[\(index % 100)]"
            return toast
        }
        var matched = 0
        let samples = time(rounds: rounds) {
            for var toast in toasts { matched += rules.apply(to: &toast, unset: .all, modes: []).matched.count }
        }
        precondition(matched > 0)
        return Samples(samples).median * 1_000 / Double(count)
    }

    /// The rules' budget at its worst (`RuleBudget`): the most rules of
    /// the heaviest message pattern the budget allows, and 1,000 rules of
    /// a pattern made into a table, each against a 4 KiB message that
    /// keeps every state of the machine alive. Milliseconds one add spends
    /// in the rules: how long the event loop, and a `status` behind it,
    /// waits for it; and, as the baseline in the same run, what the same
    /// patterns cost by the sets of states alone (without a table or bits).
    public static func budgetWorstCase(
        rounds: Int
    ) throws -> [(name: String, rules: Int, steps: Int, milliseconds: Double, setsMilliseconds: Double)] {
        let heavy = #"(([ab]?){10}){60}[ab]*c?$"#
        let heavySteps = try BoundedRegex(heavy).stepsPerByte * ToastLimits.messageBytes
        let files = [
            ("heaviest message regex", RuleBudget.maxSteps / heavySteps, heavy),
            ("table regexes", RuleBudget.maxRules, "(a|b)*c(a|ab)*$"),
        ]
        // Holds each pattern's literal (`c`), so no prefilter skips the
        // machine, and matches neither (it ends in `x`).
        let message = "c" + String(repeating: "ab", count: ToastLimits.messageBytes / 2 - 2) + "x"
        return try files.map { name, count, pattern in
            let text = (0..<count).map { "[[rule]]\nmatch = { message_regex = \"\(pattern)\" }\nset = { icon = \"r\($0)\" }\n" }
                .joined(separator: "\n")
            let rules = try ToastdConfig.parse(text).get().rules
            let steps = rules.rules.reduce(0) { $0 + RuleBudget.steps(of: $1.match) }
            var matched = 0
            let samples = time(rounds: rounds) {
                var toast = Toast(message: message)
                matched += rules.apply(to: &toast, unset: .all, modes: []).matched.count
            }
            let regex = try BoundedRegex(pattern)
            let sets = time(rounds: rounds) {
                for _ in 0..<count where regex.matchesBySets(message) { matched += 1 }
            }
            return (name, count, steps, Samples(samples).median, Samples(sets).median)
        }
    }

    /// Milliseconds per call of `body`, one sample per round.
    static func time(rounds: Int, _ body: () -> Void) -> [Double] {
        (0..<rounds).map { _ in
            let start = monotonicNanoseconds()
            body()
            return Double(monotonicNanoseconds() - start) / 1e6
        }
    }
}
