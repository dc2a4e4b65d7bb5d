// SPDX-License-Identifier: Apache-2.0
import ToastCore
import ToastSystem
import ToastRegex
import SDBus
#if canImport(Glibc)
import Glibc
#endif

/// Every scenario of docs/BENCHMARKS.md, each with its baselines measured
/// in the same run, printed as Markdown tables as they finish.
public struct BenchmarkSuite {
    public struct Programs: Sendable {
        public var toastd: String
        public var toastctl: String
        /// bench/oneshot.c, built with cc.
        public var cOneShot: String
        /// bench/echo.c, built with cc.
        public var cEcho: String
        /// This program, which serves the swift-nio echo baseline.
        public var bench: String
        /// Sources/nio-echo built as toastd is: the swift-nio floor of a socket-activated start.
        public var nioEcho: String?
        public var socat: String?
        /// toastd linked the default way (the Swift libraries as shared
        /// objects), for its idle RSS beside `toastd`'s.
        public var toastdDynamic: String?
        /// notify-send, when a dunst on a private bus is ready (scripts/bench.sh --with-dunst).
        public var notifySend: String?
        public var dunstPID: Int32?
        /// bench/peers-memory.sh's output: dunst's and mako's memory, idle and holding many notifications.
        public var peerMemory: String?
        /// The process's allocation count, when a counting malloc is linked.
        public var allocations: (@Sendable () -> UInt64)?

        public init(toastd: String, toastctl: String, cOneShot: String, cEcho: String, bench: String) {
            self.toastd = toastd
            self.toastctl = toastctl
            self.cOneShot = cOneShot
            self.cEcho = cEcho
            self.bench = bench
        }
    }

    public var programs: Programs
    /// Fewer samples, for a quick look (the numbers are then rougher).
    public var quick: Bool
    public var print: (String) -> Void

    public init(programs: Programs, quick: Bool, print: @escaping (String) -> Void) {
        self.programs = programs
        self.quick = quick
        self.print = print
    }

    /// toastd as the benchmarks run it: as it ships, with durable state (in
    /// a state directory of its own), logging only notices (an info line per
    /// toast would measure the logger), and limits high enough for 1M toasts.
    /// `ephemeral` is the in-memory baseline for the cost of persistence.
    func startToastd(
        ephemeral: Bool = false, extra: [String] = [], environment: [String: String] = [:], executable: String? = nil, state: String? = nil
    ) throws -> ServerUnderTest {
        try ServerUnderTest(
            name: "toastd", executable: executable ?? programs.toastd,
            arguments: toastdArguments(socket: "{socket}", state: ephemeral ? nil : state ?? "{state}") + extra,
            environment: benchEnvironment.merging(environment) { $1 }
        )
    }

    /// toastd's arguments as the benchmarks run it; no `state`: `--ephemeral`.
    func toastdArguments(socket: String, state: String?) -> [String] {
        [
            "--socket", socket, "--log-level", "notice", "--log-target", "stderr", "--max-toasts", "2000000",
            "--max-toasts-per-source", "2000000", "--max-connections", "1024",
        ] + (state.map { ["--state-dir", $0] } ?? ["--ephemeral"])
    }

    /// Never the benchmarking user's own ~/.config/toastd/config.toml.
    var benchEnvironment: [String: String] { ["XDG_CONFIG_HOME": "/nonexistent/toastd-bench"] }

    public func runAll() throws {
        try oneShot()
        try ingest()
        try fanOut()
        try memory()
        scheduler()
        try dbus()
    }

    // MARK: - 1. One-shot add

    public func oneShot() throws {
        let server = try startToastd()
        defer { server.stop() }
        let line = String(decoding: RequestLine.add(Toast(message: "x")), as: UTF8.self)
        let lineFile = server.directory + "/add.json"
        try writeFile(lineFile, line)
        var clients = [
            OneShotBenchmark.Client(name: "C floor (bench/oneshot.c)", executable: programs.cOneShot, arguments: [server.socket, "x"]),
            OneShotBenchmark.Client(name: "toastctl add", executable: programs.toastctl, arguments: ["add", "--socket", server.socket, "x"]),
        ]
        if let socat = programs.socat {
            clients.append(.init(name: "socat", executable: socat, arguments: ["-", "UNIX-CONNECT:\(server.socket)"], stdin: lineFile))
        }
        if let notifySend = programs.notifySend {
            clients.append(.init(name: "notify-send → dunst", executable: notifySend, arguments: ["x"]))
        }
        let results = try OneShotBenchmark.run(clients, rounds: quick ? 3 : 10, runs: quick ? 10 : 30)
        let floor = results[clients[0].name]!.median
        let toastctl = results[clients[1].name]!.median
        var table = Table("client", "median ms", "p99 ms", "× C floor", "runs")
        for client in clients {
            let samples = results[client.name]!
            table.add(client.name, Figure.fixed(samples.median), Figure.fixed(samples.percentile(99)), Figure.ratio(samples.median / floor), "\(samples.count)")
        }
        print("## 1. One-shot add\n\n" + table.markdown + "\n")
        var verdict = "toastctl / C floor = \(Figure.ratio(toastctl / floor)) (target ≤ 2×)"
        if let notify = results["notify-send → dunst"] {
            verdict += "; notify-send / toastctl = \(Figure.ratio(notify.median / toastctl)) (target ≥ 3×)"
        }
        print(verdict + "\n")
    }

    // MARK: - 2. Ingest

    public func ingest() throws {
        let total = quick ? 40_000 : 200_000
        let rounds = quick ? 3 : 5
        var table = Table("server", "connections", "acked adds/s", "× toastd", "errors")
        var peakKiB = 0
        var persistence: [String] = []
        var rulesCost: [String] = []
        var verdicts: [String] = []
        let rulesFile = "/tmp/toastd-bench-rules-\(getpid()).toml"
        try writeFile(rulesFile, RulesBenchmark.twentyRules)
        defer { unlink(rulesFile) }
        for connections in [1, 16] {
            let perConnection = total / connections
            let servers: [(String, () throws -> ServerUnderTest)] = [
                ("C line echo", { try ServerUnderTest(name: "c-echo", executable: self.programs.cEcho, arguments: ["{socket}"]) }),
                ("swift-nio line echo", { try ServerUnderTest(name: "nio-echo", executable: self.programs.bench, arguments: ["nio-echo", "--socket", "{socket}"]) }),
                ("toastd --ephemeral", { try self.startToastd(ephemeral: true) }),
                ("toastd + 20 rules", { try self.startToastd(extra: ["--config", rulesFile]) }),
                ("toastd", { try self.startToastd() }),
            ]
            // The servers take turns, a fresh one each run, and each ratio is
            // the median of the rounds' own ratios (Rounds): the echo's rate
            // alone moved from 457,000 to 773,000 lines a second between runs
            // minutes apart.
            var rates = Rounds(subjects: servers.count)
            var errors = Array(repeating: 0, count: servers.count)
            for _ in 0..<rounds {
                var round: [Double] = []
                for (index, (name, start)) in servers.enumerated() {
                    let server = try start()
                    let result = try IngestBenchmark.run(socket: server.socket, connections: connections, perConnection: perConnection)
                    if name == "toastd" { peakKiB = max(peakKiB, server.process.memory.peak) }
                    server.stop()
                    round.append(result.perSecond)
                    errors[index] += result.errors
                }
                rates.record(round)
            }
            let (echo, ephemeral, ruled, toastd) = (1, 2, 3, 4)
            for (index, (name, _)) in servers.enumerated() {
                table.add(name, "\(connections)", Figure.count(rates.subjects[index].median), Figure.ratio(rates.ratio(index, to: toastd)), "\(errors[index])")
            }
            let durable = rates.subjects[toastd].median
            let plural = connections == 1 ? "" : "s"
            // Each round's own ratio too: at one connection they spread over
            // about ±20% around the median on this machine (docs/BENCHMARKS.md,
            // "A waiting toast stored as it is held").
            let spread = rates.ratioRange(echo, to: toastd)
            verdicts.append(
                "\(connections) connection\(plural): swift-nio echo / toastd = \(Figure.ratio(rates.ratio(echo, to: toastd))) "
                    + "(rounds \(Figure.fixed(spread.lowerBound)) to \(Figure.ratio(spread.upperBound))), "
                    + "with 20 rules \(Figure.ratio(rates.ratio(echo, to: ruled))) (target ≤ 8×)"
            )
            rulesCost.append(
                "\(connections) connection\(plural): \(Figure.count(rates.subjects[ruled].median)) adds/s with 20 rules, \(Figure.count(durable)) without; "
                    + "the rules cost \(Figure.fixed(1e6 / rates.subjects[ruled].median - 1e6 / durable, 2)) µs per add"
            )
            persistence.append(
                "\(connections) connection\(plural): \(Figure.count(durable)) adds/s durable, \(Figure.count(rates.subjects[ephemeral].median)) ephemeral; "
                    + "persistence costs \(Figure.fixed(1e6 / durable - 1e6 / rates.subjects[ephemeral].median, 2)) µs per add "
                    + "(ephemeral / durable = \(Figure.ratio(rates.ratio(ephemeral, to: toastd))))"
            )
        }
        print(
            "## 2. Ingest (\(Figure.count(Double(total))) realistic adds, pipelined; the servers take turns, "
                + "medians of \(rounds) rounds, each ratio the median of the rounds' own)\n\n" + table.markdown + "\n"
        )
        print(verdicts.map { "- " + $0 }.joined(separator: "\n") + "\n")
        print("toastd peak RSS during ingest: \(Figure.fixed(Double(peakKiB) / 1024, 1)) MiB\n")
        print("The cost of persistence (toastd ships durable; `--ephemeral` keeps everything in memory):\n\n"
            + persistence.map { "- " + $0 }.joined(separator: "\n") + "\n")
        print("The cost of a 20-rule configuration (RulesBenchmark.twentyRules; durable in both):\n\n"
            + rulesCost.map { "- " + $0 }.joined(separator: "\n") + "\n")
        try regexes()
    }

    /// The rules' regex matcher against glibc's regexec, same patterns, same texts.
    public func regexes() throws {
        var table = Table(
            "pattern", "text", "sets of states µs", "BoundedRegex µs (machine alone)", "glibc µs", "glibc / machine", "with the prefilter µs"
        )
        for bytes in [256, 4_096] {
            for row in try RulesBenchmark.regexes(bytes: bytes, rounds: quick ? 5 : 21) {
                table.add(
                    "`\(row.pattern)`", "\(row.textBytes) B", Figure.fixed(row.sets, 1), Figure.fixed(row.machine, 1), Figure.fixed(row.glibc, 1),
                    Figure.ratio(row.glibc / row.machine), Figure.fixed(row.bounded, 2)
                )
            }
        }
        print("### Rules: regular expressions (a text each does not match: the slow case)\n\n" + table.markdown + "\n")
        let cost = try RulesBenchmark.applyCost(count: 10_000, rounds: quick ? 3 : 9)
        print("The twenty rules applied to one workload toast, in process: \(Figure.fixed(cost, 2)) µs\n")
        var budget = Table(
            "rules at the budget's worst (4 KiB adversarial message)", "rules", "steps", "ms an add", "the sets alone, ms", "sets / machine", "target")
        for row in try RulesBenchmark.budgetWorstCase(rounds: quick ? 3 : 9) {
            budget.add(
                row.name, "\(row.rules)", Figure.count(Double(row.steps)), Figure.fixed(row.milliseconds, 2),
                Figure.fixed(row.setsMilliseconds, 2), Figure.ratio(row.setsMilliseconds / row.milliseconds), "≤ 40 ms (status waits this long)")
        }
        print(budget.markdown + "\n")
    }

    // MARK: - Libraries

    /// Well-kept libraries against the hand-written pieces, in this run (issue #39).
    public func libraries() throws {
        let rounds = quick ? 5 : 21
        var regexes = Table("pattern", "text", "BoundedRegex µs", "RE2 µs", "RE2 / BoundedRegex")
        for row in try LibraryBenchmark.regexTimes(rounds: rounds) {
            regexes.add("`\(row.pattern)`", "\(row.textBytes) B", Figure.fixed(row.bounded, 3), Figure.fixed(row.re2, 3), Figure.ratio(row.re2 / row.bounded))
        }
        let agreement = LibraryBenchmark.regexAgreement(patterns: quick ? 1_000 : 3_000)
        print("## Libraries against the hand-written pieces\n\n### RE2 against BoundedRegex (texts they do not match)\n\n" + regexes.markdown + "\n")
        print(
            "Against glibc's `regexec` on \(agreement.compared) random pattern/text pairs (the differential test's): "
                + "BoundedRegex differs on \(agreement.boundedDiffers), RE2 on \(agreement.re2Differs)"
                + (agreement.example.map { " (e.g. \($0))" } ?? "") + "; RE2 refused \(agreement.re2Refused) patterns glibc takes.\n"
        )
        let widths = LibraryBenchmark.widths(rounds: rounds)
        var width = Table("width of a character", "ns", "× utf8proc")
        width.add("utf8proc (`utf8proc_charwidth`)", Figure.fixed(widths.utf8proc, 1), "1.00×")
        width.add("the Unicode 15 table copied by hand", Figure.fixed(widths.table, 1), Figure.ratio(widths.table / widths.utf8proc))
        print("### utf8proc against the hand-copied width table\n\n" + width.markdown + "\n")
        print(
            "They differ on \(widths.differing) assigned scalars" + (widths.examples.isEmpty ? "" : " (\(widths.examples.joined(separator: ", ")), …)")
                + ". From glibc's `wcwidth` (C.UTF-8, what tmux and VTE follow): utf8proc differs on \(widths.utf8procVersusGlibc), the table on \(widths.tableVersusGlibc).\n"
        )
        var structures = Table("structure (the scheduler's use)", "swift-collections ns/op", "hand-written ns/op", "collections / hand")
        for row in LibraryBenchmark.structures(count: quick ? 50_000 : 200_000, rounds: rounds) {
            structures.add(row.name, Figure.fixed(row.collections, 1), Figure.fixed(row.handWritten, 1), Figure.ratio(row.collections / row.handWritten))
        }
        print("### swift-collections' Heap and Deque against the hand-written ones\n\n" + structures.markdown + "\n")
    }

    // MARK: - 6. D-Bus

    /// notify-send and a persistent D-Bus client against toastd --freedesktop
    /// and against dunst, each on its own private bus, in the same run.
    public func dbus() throws {
        guard let notifySend = programs.notifySend, let dunstBus = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) })
        else {
            print("## 6. D-Bus\n\nSkipped: `scripts/bench.sh --with-dunst` starts dunst and notify-send for it.\n")
            return
        }
        let bus = try PrivateBus()
        let server = try startToastd(extra: ["--freedesktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { server.stop() }
        try DBusBenchmark.waitForServer(bus.address, name: "toastd")
        let clients = [
            OneShotBenchmark.Client(name: "notify-send → toastd", executable: notifySend, arguments: ["x"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]),
            OneShotBenchmark.Client(name: "notify-send → dunst", executable: notifySend, arguments: ["x"], environment: ["DBUS_SESSION_BUS_ADDRESS": dunstBus]),
        ]
        let oneShot = try OneShotBenchmark.run(clients, rounds: quick ? 3 : 10, runs: quick ? 10 : 30)
        var table = Table("client", "median ms", "p99 ms", "× toastd")
        let toastd = oneShot[clients[0].name]!.median
        for client in clients {
            let samples = oneShot[client.name]!
            table.add(client.name, Figure.fixed(samples.median), Figure.fixed(samples.percentile(99)), Figure.ratio(samples.median / toastd))
        }
        print("## 6. D-Bus\n\nOne-shot `notify-send x`, whole process, interleaved:\n\n" + table.markdown + "\n")
        // The same persistent client against each, taking turns; toastd also
        // --ephemeral (what the commit costs) and the bus's own floor.
        let ephemeralBus = try PrivateBus()
        let ephemeral = try startToastd(
            ephemeral: true, extra: ["--freedesktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": ephemeralBus.address]
        )
        defer { ephemeral.stop() }
        try DBusBenchmark.waitForServer(ephemeralBus.address, name: "toastd")
        let callers = [
            try DBusBenchmark.Caller(name: "toastd --freedesktop", address: bus.address, call: .notify),
            try DBusBenchmark.Caller(name: "dunst", address: dunstBus, call: .notify),
            try DBusBenchmark.Caller(name: "toastd --freedesktop --ephemeral", address: ephemeralBus.address, call: .notify),
            try DBusBenchmark.Caller(name: "toastd, GetServerInformation (the bus's floor)", address: bus.address, call: .serverInformation),
        ]
        let rounds = quick ? 5 : 15
        let seconds = 0.2
        let rates = try DBusBenchmark.rates(callers, rounds: rounds, seconds: seconds)
        var persistent = Table("server", "calls/s", "median ms", "p99 ms", "× dunst")
        let dunst = rates[1].callsPerSecond
        for (caller, rate) in zip(callers, rates) {
            persistent.add(
                caller.name, Figure.count(rate.callsPerSecond), Figure.fixed(rate.latencies.median),
                Figure.fixed(rate.latencies.percentile(99)), Figure.ratio(rate.callsPerSecond / dunst)
            )
        }
        print(
            "A persistent client's synchronous calls (Notify with the same text unless named), "
                + "\(rounds) rounds of \(Figure.fixed(seconds, 1)) s each, the servers taking turns:\n\n" + persistent.markdown + "\n"
        )
        print(
            "notify-send: dunst / toastd = \(Figure.ratio(oneShot[clients[1].name]!.median / toastd)) (target ≥ 1×); "
                + "persistent: toastd / dunst = \(Figure.ratio(rates[0].callsPerSecond / dunst)) (target ≥ 10×)\n"
        )
    }

    // MARK: - 3. Fan-out

    public func fanOut() throws {
        // First the daemon's own cost (one thread reads every subscriber;
        // beside it, the same thread never sleeping), then what viewers see
        // (a process each, sharing the cores).
        var output = "## 3. Fan-out latency (add written → presented read)\n\n"
        let counts = [1, 16, 128]
        let samples = quick ? 100 : 400
        func measure(_ readers: FanOutBenchmark.Readers, subscribers: Int, floor: Bool = false) throws -> Samples {
            let server =
                try floor
                ? ServerUnderTest(name: "c-fanout", executable: programs.cEcho, arguments: ["--fanout", "{socket}"])
                : startToastd()
            defer { server.stop() }
            return try FanOutBenchmark.run(socket: server.socket, subscribers: subscribers, samples: samples, readers: readers)
        }
        var table = Table(
            "subscribers", "p50 µs", "p99 µs", "samples", "reader polling: p50 µs", "p99 µs", "C floor: p50 µs", "p99 µs",
            "toastd / C floor: p50", "p99"
        )
        for subscribers in counts {
            let blocking = try measure(.oneThread, subscribers: subscribers)
            let polling = try measure(.oneSpinningThread, subscribers: subscribers)
            let floor = try measure(.oneThread, subscribers: subscribers, floor: true)
            table.add(
                "\(subscribers)", Figure.fixed(blocking.median, 0), Figure.fixed(blocking.percentile(99), 0), "\(blocking.count)",
                Figure.fixed(polling.median, 0), Figure.fixed(polling.percentile(99), 0),
                Figure.fixed(floor.median, 0), Figure.fixed(floor.percentile(99), 0),
                Figure.ratio(blocking.median / floor.median), Figure.ratio(blocking.percentile(99) / floor.percentile(99))
            )
        }
        output += "Every subscriber read by one thread on epoll (toastd's cost; the target: p99 ≤ 1 ms at 128). "
        output += "Then the same thread polling epoll without sleeping, so that toastd's writes do not pay for waking it; "
        output += "then the floor: bench/echo.c --fanout, which answers each add and writes it on to every subscriber "
        output += "(one send and one wake-up each, nothing else), read by the same one thread:\n\n"
        output += table.markdown + "\n\n"
        var viewers = Table("subscribers", "p50 µs", "p99 µs", "samples")
        for subscribers in counts {
            let latencies = try measure(.processPerSubscriber(executable: programs.bench), subscribers: subscribers)
            viewers.add("\(subscribers)", Figure.fixed(latencies.median, 0), Figure.fixed(latencies.percentile(99), 0), "\(latencies.count)")
        }
        output += "A process per subscriber, each blocked in its read (what that many viewers see on this machine):\n\n"
        output += viewers.markdown + "\n"
        // Through the suite's writer, so the section shows in its place
        // (Swift.print's buffer came out after every later section).
        print(output)
    }

    // MARK: - 4. Memory

    public func memory() throws {
        // One state directory for the whole section: the restart reads it back.
        let directory = try TemporaryDirectory(prefix: "toast-bench-state")
        defer { directory.remove() }
        let state = directory.path
        let server = try startToastd(state: state + "/toastd")
        let result = try MemoryBenchmark.run(server: server, counts: [10_000, 100_000])
        func row(_ table: inout Table, _ label: String, _ memory: (pss: Int, anonymous: Int, rss: Int), _ target: String = "") {
            table.add(label, Figure.fixed(Double(memory.pss) / 1024, 1), Figure.fixed(Double(memory.anonymous) / 1024, 1),
                      Figure.fixed(Double(memory.rss) / 1024, 1), target)
        }
        // dunst and mako, idle and holding as many notifications, from
        // bench/peers-memory.sh; or dunst idle alone, from the D-Bus section's.
        let peers = programs.peerMemory.map { MemoryBenchmark.peerRows(ProcFile.read($0) ?? "") } ?? []
        let dunstIdle = peers.first { $0.label == "dunst idle" }?.memory ?? programs.dunstPID.map { ChildProcess.smaps(of: $0) }
        var table = Table("state", "PSS MiB", "anonymous MiB", "RSS MiB", "target")
        row(&table, "toastd idle", result.idle, dunstIdle.map { "PSS ≤ dunst's (\(Figure.fixed(Double($0.pss) / 1024, 1)))" } ?? "PSS ≤ dunst's")
        for (count, memory) in result.queued {
            row(&table, "toastd, \(Figure.count(Double(count))) toasts queued", memory, count == 100_000 ? "anonymous ≤ 48 MiB" : "")
        }
        // The same 100,000 after a restart: read back from the state directory.
        server.stop()
        let started = monotonicNanoseconds()
        let restarted = try startToastd(state: state + "/toastd")
        let restartMs = Double(monotonicNanoseconds() - started) / 1e6
        let after = ChildProcess.settledSmaps(of: restarted.process.pid)
        let before = result.queued.last!.memory
        row(&table, "toastd, the 100,000 after a restart", after, "anonymous as before (\(Figure.fixed(Double(after.anonymous) / Double(max(1, before.anonymous)), 2))×)")
        restarted.stop()
        if let dynamic = programs.toastdDynamic {
            let server = try startToastd(executable: dynamic)
            row(&table, "toastd idle, the Swift libraries linked dynamically", ChildProcess.settledSmaps(of: server.process.pid))
            server.stop()
        }
        if peers.isEmpty, let dunstIdle { row(&table, "dunst idle (peer)", dunstIdle) }
        for peer in peers {
            if let memory = peer.memory {
                row(&table, peer.label + " (peer)", memory, peer.note)
            } else {
                table.add(peer.label + " (peer)", "–", "–", "–", peer.note)
            }
        }
        print("## 4. Memory\n\n" + table.markdown + "\n")
        if let last = result.queued.last, let first = result.queued.first, last.count > first.count {
            let perToast = Double((last.memory.anonymous - first.memory.anonymous) * 1024) / Double(last.count - first.count)
            print("About \(Figure.count(perToast)) bytes of anonymous memory per queued toast. The restart with 100,000 live toasts took \(Figure.fixed(restartMs, 0)) ms from exec to its socket accepting.\n")
        }
        print(
            "When idle was read, toastd mapped \(result.idleHugeKiB) KiB of its code with huge pages (4096 once `HugeCodePages` is done) "
                + "and had \(result.idleThreads) threads (4 once the thread that lets go of the start-up code has ended). "
                + "Its mappings with the most PSS then, KiB of PSS / RSS / file pages mapped huge: "
                + result.idleMappings.map { mapping in
                    let name = mapping.path.isEmpty ? "anonymous" : String(mapping.path.split(separator: "/").last ?? "")
                    return "\(name) \(mapping.permissions) \(mapping.pss) / \(mapping.rss) / \(mapping.hugeFile)"
                }.joined(separator: "; ") + ".\n"
        )
    }

    // MARK: - 5. Scheduler

    public func scheduler() {
        let sizes = [1_000, 100_000, 1_000_000]
        var header = ["operation"] + sizes.map { "\(Figure.count(Double($0))) held, ns/op" } + ["1M / 1k"]
        if programs.allocations != nil { header += sizes.map { "allocs/op at \(Figure.count(Double($0)))" } }
        var table = Table(header)
        let batch = quick ? 2_000 : 10_000
        let repeats = quick ? 3 : 7
        for operation in SchedulerBenchmark.Operation.allCases {
            // The sizes take turns within each round (Rounds).
            var times = Rounds(subjects: sizes.count)
            var allocations = sizes.map { _ in Samples() }
            for _ in 0..<repeats {
                var round: [Double] = []
                for (index, size) in sizes.enumerated() {
                    let sample = SchedulerBenchmark.measure(operation, held: size, batch: batch, allocations: programs.allocations ?? { 0 })
                    allocations[index].append(sample.allocations)
                    round.append(sample.nanoseconds)
                }
                times.record(round)
            }
            var row = [operation.rawValue] + times.subjects.map { Figure.fixed($0.median, 0) } + [Figure.ratio(times.ratio(sizes.count - 1, to: 0))]
            if programs.allocations != nil { row += allocations.map { Figure.fixed($0.median, 1) } }
            table.rows.append(row)
        }
        print("## 5. Scheduler (pure state machine; the sizes take turns, median of \(repeats) rounds of \(Figure.count(Double(batch))) operations each)\n\n" + table.markdown + "\n")
    }
}

extension Table {
    public init(_ header: [String]) {
        self.header = header
    }
}
