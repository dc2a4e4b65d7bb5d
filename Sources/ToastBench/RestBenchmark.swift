// SPDX-License-Identifier: Apache-2.0
import ToastCore
import ToastSystem
#if canImport(Glibc)
import Glibc
#endif

/// Start-up and rest, as a laptop sees toastd (issue #44): how long from
/// exec to the first answered request, with an empty state, 1,000 history
/// entries and 100,000 live toasts; the first `toastctl add` of a session
/// that socket activation starts toastd for; and, after a long rest, what
/// toastd holds in memory, how often it woke, and what the first add costs.
extension BenchmarkSuite {
    // MARK: - 7. Start-up

    public func startup() throws {
        let runs = quick ? 3 : 7
        let temporary = try TemporaryDirectory(prefix: "toast-bench-startup")
        defer { temporary.remove() }
        let root = temporary.path

        // The three states, each written by a toastd that then stopped.
        let empty = root + "/empty", history = root + "/history", live = root + "/live"
        try prepare(state: empty) { _ in }
        try prepare(state: history) { server in
            var lines: [UInt8] = []
            for index in 0..<1_000 {
                lines += RequestLine.add(Toast(message: "build \(index) finished", title: "CI", role: .success, duration: .indefinite, source: "bench"))
            }
            _ = try IngestBenchmark.run(socket: server.socket, batches: [lines], perConnection: 1_000)
            let socket = try LineSocket(path: server.socket)
            try socket.write("{\"op\":\"clear\",\"force\":true}\n")
            _ = try socket.readLine()
        }
        try prepare(state: live) { server in
            _ = try MemoryBenchmark.run(server: server, counts: [100_000])
        }

        var table = Table("state at start", "exec → first reply, median ms", "min ms", "max ms", "runs", "target")
        for (label, state, target) in [
            ("empty", empty, "≤ 20 ms"), ("1,000 history entries", history, ""), ("100,000 live toasts", live, "≤ 200 ms"),
        ] {
            var samples = Samples()
            for _ in 0..<runs { samples.append(try timeToFirstReply(state: state)) }
            table.add(label, Figure.fixed(samples.median, 1), Figure.fixed(samples.percentile(0), 1), Figure.fixed(samples.percentile(100), 1), "\(runs)", target)
        }
        print("## 7. Start-up\n\n" + table.markdown + "\n")

        // The first add of a session: systemd holds the socket, toastctl
        // connects and writes, and toastd is started to answer it.
        let activator = "/usr/bin/systemd-socket-activate"
        guard access(activator, X_OK) == 0 else {
            print("(no \(activator): the socket-activated first add is not measured)\n")
            return
        }
        var activated = Samples()
        for _ in 0..<runs {
            activated.append(try socketActivated(activator: activator, server: [programs.toastd] + toastdArguments(socket: "{socket}", state: empty)) { socket in
                (programs.toastctl, ["add", "--socket", socket, "first of the session"])
            })
        }
        let server = try startToastd(state: empty)
        let warm = try Self.adds(toastctl: programs.toastctl, socket: server.socket, count: quick ? 10 : 30)
        // The half second after each add takes in what it runs after its
        // answer: its log line, the connection's close, the commit.
        let touched = try (0..<5).compactMap { index in
            try TouchedPages.of(server.process.pid) {
                _ = try ChildProcess.run(programs.toastctl, ["add", "--socket", server.socket, "pages \(index)"])
                usleep(500_000)
            }
        }
        server.stop()
        var activation = Table("first toastctl add", "median ms", "× warm", "runs", "target")
        activation.add("toastd already running (warm)", Figure.fixed(warm.median), "1.00×", "\(warm.count)", "")
        activation.add("socket-activated: toastd started by the add", Figure.fixed(activated.median), Figure.ratio(activated.median / warm.median), "\(runs)", "≤ 3×")
        print(activation.markdown + "\n")
        if !touched.isEmpty {
            func median(_ kind: KeyPath<TouchedPages, Int>) -> Int { touched.map { $0[keyPath: kind] }.sorted()[touched.count / 2] }
            var pages = Table("what a warm `toastctl add` referenced in toastd", "code KiB", "data KiB", "anonymous KiB", "4 KiB pages")
            pages.add("its executable and anonymous memory, median of \(touched.count)", "\(median(\.code))", "\(median(\.data))",
                      "\(median(\.anonymous))", "\(median(\.total) / 4)")
            print(pages.markdown + "\n")
        }

        // The same start under the C one-shot client, for three servers: what
        // any server pays here to be started by its first client (the C
        // echo), what swift-nio's start adds to that (nio-echo, built and
        // linked as toastd is), and toastd.
        var floors = Table("server started by the C client's connection", "warm ms", "socket-activated ms", "× warm", "runs")
        var servers: [(String, [String], Bool)] = [("C line echo (bench/echo.c)", [programs.cEcho, "{socket}"], true)]
        if let nioEcho = programs.nioEcho { servers.append(("swift-nio echo (nio-echo, linked as toastd)", [nioEcho, "{socket}"], true)) }
        servers.append(("toastd", [programs.toastd] + toastdArguments(socket: "{socket}", state: empty), false))
        for (label, command, echoes) in servers {
            let client = { (socket: String) in (self.programs.cOneShot, [socket, "first"] + (echoes ? ["--any-reply"] : [])) }
            var started = Samples(), running = Samples()
            for _ in 0..<runs { started.append(try socketActivated(activator: activator, server: command, client: client)) }
            let server = try ServerUnderTest(name: label, executable: command[0], arguments: Array(command.dropFirst()), environment: benchEnvironment)
            for index in 0..<(3 + (quick ? 10 : 30)) {
                let (executable, arguments) = client(server.socket)
                let elapsed = Double(try ChildProcess.time(executable, arguments)) / 1e6
                if index >= 3 { running.append(elapsed) }
            }
            server.stop()
            floors.add(label, Figure.fixed(running.median), Figure.fixed(started.median), Figure.ratio(started.median / running.median), "\(runs)")
        }
        print(floors.markdown + "\n")
    }

    /// Runs a toastd on `state` (a new directory), lets `fill` talk to it, and stops it.
    private func prepare(state: String, _ fill: (ServerUnderTest) throws -> Void) throws {
        let server = try startToastd(state: state)
        try fill(server)
        server.stop()
    }

    /// Milliseconds from spawning toastd on `state` to its first reply (a `status`).
    private func timeToFirstReply(state: String) throws -> Double {
        let directory = try TemporaryDirectory(prefix: "toast-bench-ready")
        defer { directory.remove() }
        let socket = directory.path + "/s.sock"
        let start = monotonicNanoseconds()
        let process = try ChildProcess(programs.toastd, toastdArguments(socket: socket, state: state), environment: benchEnvironment)
        defer { process.terminate() }
        while monotonicNanoseconds() - start < 60_000_000_000 {
            if let connection = try? LineSocket(path: socket) {
                try connection.write("{\"op\":\"status\"}\n")
                _ = try connection.readLine(timeout: 60_000)
                return Double(monotonicNanoseconds() - start) / 1e6
            }
            usleep(200)
        }
        throw BenchError("toastd on \(state) gave no reply within a minute")
    }

    /// Milliseconds for one run of `client` whose connection starts
    /// `server` (through systemd-socket-activate, which execs it on the
    /// socket); `{socket}` in either stands for the socket.
    private func socketActivated(activator: String, server: [String], client: (String) -> (String, [String])) throws -> Double {
        let directory = try TemporaryDirectory(prefix: "toast-bench-activate")
        defer { directory.remove() }
        let socket = directory.path + "/s.sock"
        let environment = benchEnvironment.map { "\($0.key)=\($0.value)" }.flatMap { ["-E", $0] }
        let activated = try ChildProcess(activator, ["-l", socket] + environment + server.map { $0 == "{socket}" ? socket : $0 })
        defer { activated.terminate() }
        var status = stat()
        for _ in 0..<1_000 where stat(socket, &status) != 0 { usleep(5_000) }
        usleep(50_000)  // systemd-socket-activate listens; nothing has connected yet
        let (executable, arguments) = client(socket)
        return Double(try ChildProcess.time(executable, arguments)) / 1e6
    }

    /// `count` runs of `toastctl add` against a running toastd, after a few to warm up.
    static func adds(toastctl: String, socket: String, count: Int, warmup: Int = 3) throws -> Samples {
        var samples = Samples()
        for index in 0..<(warmup + count) {
            let elapsed = try ChildProcess.time(toastctl, ["add", "--socket", socket, "warm \(index)"])
            if index >= warmup { samples.append(Double(elapsed) / 1e6) }
        }
        return samples
    }

    // MARK: - 8. At rest

    /// Daemons that rest while the other scenarios run, measured by `endRest`.
    public struct Resting {
        /// Who rests, and which client wakes it.
        enum Kind: CaseIterable {
            /// bench/echo.c woken by bench/oneshot.c before any other daemon:
            /// the first request after the rest wakes the machine too (its
            /// caches, its idle vCPU), whatever the server, and that cost
            /// fell on the group woken first, a session's first add. It is
            /// measured here, on the floor, and paid by none of the groups.
            case firstWake
            /// toastd as shipped, woken by a copy of toastctl that rested as
            /// long (nothing ran it): a session's first `toastctl add`, the
            /// issue's figure.
            case sessionFirst
            /// toastd as shipped, woken by `toastctl add` run just before.
            case shipped
            /// toastd that lets go of its start-up code pages once ready and
            /// reads its code back in small folios, whatever folios the page
            /// cache holds it in (`TOASTD_RELEASE_CODE_PAGES`; as shipped
            /// until 2026-12-03), woken by `toastctl add`.
            case released
            /// toastd with the code requests run in small pages
            /// (`TOASTD_SMALL_CODE_PAGES`), woken by `toastctl add`: as shipped
            /// before `HugeCodePages`.
            case smallPages
            /// toastd as shipped, woken by bench/oneshot.c: toastd's own share, without toastctl's start.
            case shippedCClient
            /// bench/echo.c woken by bench/oneshot.c: what any process pays to wake after a rest on this machine.
            case cEcho

            /// How many of the kind rest. A rest gives one sample a daemon,
            /// and a wake's cost moves with the machine by 2× and more, so
            /// the groups compared with one another (and the row)
            /// take four each: with three, one slow wake made the median.
            var count: Int {
                switch self {
                case .firstWake: 1
                case .sessionFirst, .shipped, .released, .smallPages: 4
                case .shippedCClient, .cEcho: 2
                }
            }

            var isEcho: Bool { self == .firstWake || self == .cEcho }

            /// What toastd is started with.
            var environment: [String: String] {
                switch self {
                case .released: ["TOASTD_RELEASE_CODE_PAGES": "1"]
                case .smallPages: ["TOASTD_SMALL_CODE_PAGES": "1"]
                default: [:]
                }
            }

            /// Its name in the list of wakes.
            var short: String {
                switch self {
                case .firstWake: "first wake (C echo)"
                case .sessionFirst: "session's first"
                case .shipped: "shipped"
                case .released: "released"
                case .smallPages: "small pages"
                case .shippedCClient: "C client"
                case .cEcho: "C echo"
                }
            }

            var label: String {
                switch self {
                case .firstWake: "C line echo woken before every other daemon (the machine's first wake after the rest)"
                case .sessionFirst: "toastd as shipped; a toastctl that rested as long (a session's first toastctl add)"
                case .shipped: "toastd as shipped (start-up's code pages kept, in small folios); toastctl add, warm"
                case .released: "toastd letting go of its code pages (TOASTD_RELEASE_CODE_PAGES=1); toastctl add, warm"
                case .smallPages: "toastd, hot code in small pages (TOASTD_SMALL_CODE_PAGES=1); toastctl add, warm"
                case .shippedCClient: "toastd as shipped; the C one-shot client, warm (toastd's own share)"
                case .cEcho: "C line echo (bench/echo.c); the C one-shot client, warm (the machine's floor)"
                }
            }
        }

        struct Daemon {
            var server: ServerUnderTest
            var kind: Kind
            /// The client that wakes it: its own copy of toastctl for a
            /// session's first add, else the one every run shares.
            var client: String
        }
        var daemons: [Daemon]
        /// Each daemon runs its own copy of the binary: pages shared with
        /// the others would divide its PSS among them.
        var copies: String
        var started: UInt64
        var seconds: Double
    }

    /// Starts the resting servers (four each of toastd woken by its own
    /// rested toastctl, as shipped, letting go of its code pages, and with its hot
    /// code in small pages, the last three woken by a warm toastctl; two
    /// each of the C client's groups; and the C echo woken first of all),
    /// each after one request, as a session's first toast; they then rest
    /// for `seconds`.
    public func beginRest(seconds: Double) throws -> Resting {
        var daemons: [Resting.Daemon] = []
        let copies = try TemporaryDirectory(prefix: "toast-bench-rest").path
        for kind in Resting.Kind.allCases {
            for _ in 0..<kind.count {
                // Each toastd in a directory of its own beside its own copy
                // of toastctl, as in an install, so that it holds that
                // copy's pages (ClientPages) and its PSS counts them.
                let directory = copies + "/\(daemons.count)"
                guard mkdir(directory, 0o700) == 0 else {
                    throw BenchError("cannot make \(directory): \(String(cString: strerror(errno)))")
                }
                let copy = directory + (kind.isEcho ? "/echo" : "/toastd")
                _ = try ChildProcess.time("/bin/cp", [kind.isEcho ? programs.cEcho : programs.toastd, copy])
                if !kind.isEcho { _ = try ChildProcess.time("/bin/cp", [programs.toastctl, directory + "/toastctl"]) }
                let server =
                    kind.isEcho
                    ? try ServerUnderTest(name: "c-echo", executable: copy, arguments: ["{socket}"])
                    : try startToastd(environment: kind.environment, executable: copy)
                var client = kind == .shippedCClient || kind.isEcho ? programs.cOneShot : programs.toastctl
                if kind == .sessionFirst { client = directory + "/toastctl" }
                let daemon = Resting.Daemon(server: server, kind: kind, client: client)
                _ = try wake(daemon, "before the rest")
                daemons.append(daemon)
            }
        }
        return Resting(daemons: daemons, copies: copies, started: monotonicNanoseconds(), seconds: seconds)
    }

    /// One request from the daemon's client.
    private func wake(_ daemon: Resting.Daemon, _ message: String) throws -> ChildProcess.Run {
        try ChildProcess.run(daemon.client, Self.request(daemon, socket: daemon.server.socket, message))
    }

    /// Runs the daemon's client once against no server (a socket that does
    /// not exist), so that its code is in the page cache; its failure is the point.
    private func warmClient(of daemon: Resting.Daemon) {
        _ = try? ChildProcess(daemon.client, Self.request(daemon, socket: "/nonexistent/toast-bench.sock", "warm")).wait()
    }

    private static func request(_ daemon: Resting.Daemon, socket: String, _ message: String) -> [String] {
        switch daemon.kind {
        case .sessionFirst, .shipped, .released, .smallPages: ["add", "--socket", socket, message]
        case .shippedCClient: [socket, message]
        case .cEcho, .firstWake: [socket, message, "--any-reply"]
        }
    }

    /// What a daemon spent serving `body`'s requests: CPU time over all its
    /// threads (/proc/PID/task/*/schedstat, in nanoseconds) and major page
    /// faults (/proc/PID/stat); with what `body` returned.
    static func cost<Result>(of pid: pid_t, _ body: () throws -> Result) rethrows -> (result: Result, cpu: Double, majorFaults: Int) {
        func now() -> (cpu: Int, faults: Int) {
            var cpu = 0
            for thread in threads(of: pid) {
                cpu += Int(ProcFile.read("/proc/\(pid)/task/\(thread)/schedstat")?.split(separator: " ").first ?? "") ?? 0
            }
            // "pid (comm) state ppid ..."; majflt is the tenth field after the name.
            let fields = ProcFile.read("/proc/\(pid)/stat")?.split(separator: ")").last?.split(separator: " ") ?? []
            return (cpu, fields.count > 9 ? Int(fields[9]) ?? 0 : 0)
        }
        let before = now()
        let result = try body()
        let after = now()
        return (result, Double(after.cpu - before.cpu), after.faults - before.faults)
    }

    /// Waits out the rest; counts the daemons' wakeups over its last
    /// minute (10 s with --quick), then measures each: its memory, then
    /// the first request after the rest and the five after it.
    public func endRest(_ resting: Resting) throws {
        defer { TemporaryDirectory.removeTree(resting.copies) }
        let window = quick ? 10.0 : 60.0
        let due = resting.started + UInt64(max(0, resting.seconds - window) * 1e9)
        let now = monotonicNanoseconds()
        if now < due { usleep(useconds_t((due - now) / 1_000)) }
        let before = resting.daemons.map { Self.contextSwitches($0.server.process.pid) }
        usleep(useconds_t(window * 1e6))
        let minutes = resting.seconds / 60
        var table = Table(
            "after \(Figure.fixed(minutes, minutes < 1 ? 1 : 0)) min at rest", "PSS MiB", "anonymous MiB", "RSS MiB",
            "wakeups / min", "first request ms", "next ms", "first / next", "after a pause ms", "first / after a pause",
            "server CPU µs, first / next", "major faults, server / client",
            "target"
        )
        // Every daemon's memory and wakeups first, before any is woken.
        let memory = resting.daemons.map { ChildProcess.smaps(of: $0.server.process.pid) }
        let wakeups = resting.daemons.indices.map { Double(Self.contextSwitches(resting.daemons[$0].server.process.pid) - before[$0]) * 60 / window }
        var woken = [Woken?](repeating: nil, count: resting.daemons.count)
        var wakes: [String] = []
        for index in Self.wakeOrder(resting.daemons.map(\.kind)) {
            let daemon = resting.daemons[index]
            let pid = daemon.server.process.pid
            // A shared client is run once, against no server, so that only
            // the server has rested (the other scenarios ran it, but maybe
            // not in the rest's last minute).
            if daemon.kind != .sessionFirst { warmClient(of: daemon) }
            let (run, cpu, faults) = try Self.cost(of: pid) { try wake(daemon, "after the rest") }
            var following = Samples()
            let nextCost = try Self.cost(of: pid) {
                for request in 0..<5 { following.append(Double(try wake(daemon, "next \(request)").elapsed) / 1e6) }
            }
            // The same request after a short pause, as a user's toasts come:
            // what a rest costs above any pause on this machine.
            var paused = Samples()
            for request in 0..<Self.pauses {
                usleep(useconds_t(Self.pause * 1e6))
                paused.append(Double(try wake(daemon, "after a pause \(request)").elapsed) / 1e6)
            }
            let result = Woken(
                first: Double(run.elapsed) / 1e6, next: following.median, paused: paused.median, firstCPU: cpu / 1e3,
                nextCPU: nextCost.cpu / 5 / 1e3,
                serverFaults: faults, clientFaults: run.majorFaults, clientRead: run.blocksRead
            )
            woken[index] = result
            wakes.append("\(wakes.count + 1). \(daemon.kind.short) \(Figure.fixed(result.first)) ms (\(Figure.fixed(result.firstCPU, 0)) µs)")
            daemon.server.stop()
        }
        var verdicts: [String] = []
        for kind in Resting.Kind.allCases {
            let group = resting.daemons.indices.filter { resting.daemons[$0].kind == kind }
            let results = group.compactMap { woken[$0] }
            var first = Samples(), next = Samples(), paused = Samples(), firstCPU = Samples(), nextCPU = Samples()
            var groupWakeups = Samples()
            for result in results {
                first.append(result.first)
                next.append(result.next)
                paused.append(result.paused)
                firstCPU.append(result.firstCPU)
                nextCPU.append(result.nextCPU)
            }
            for index in group { groupWakeups.append(wakeups[index]) }
            let serverFaults = results.map(\.serverFaults).reduce(0, +)
            let clientFaults = results.map(\.clientFaults).reduce(0, +)
            let clientRead = results.map(\.clientRead).reduce(0, +)
            let groupMemory = group.map { memory[$0] }
            func median(_ values: [Int]) -> String { Figure.fixed(Double(values.sorted()[values.count / 2]) / 1024, 1) }
            let ratio = first.median / next.median
            let pausedRatio = first.median / paused.median
            let cpu = "\(Figure.fixed(firstCPU.median, 0)) / \(Figure.fixed(nextCPU.median, 0))"
            var target = ""
            switch kind {
            case .firstWake:
                verdicts.append("the run's first wake, on a C echo server, \(Figure.fixed(first.median)) ms (\(Figure.ratio(ratio)) its next)")
            case .sessionFirst:
                target = "first ≤ 1.5× next"
                verdicts.append(
                    "a session's first toastctl add after the rest / the next = \(Figure.ratio(ratio)) (target ≤ 1.5×; toastctl read "
                        + "\(Figure.fixed(Double(clientRead) * 512 / 1_048_576 / Double(group.count), 1)) MiB back from disk a run; "
                        + "\(Figure.ratio(pausedRatio)) an add after a \(Figure.fixed(Self.pause, 0)) s pause)"
                )
            case .shipped:
                target = "PSS ≤ dunst's"
                verdicts.append("with toastctl warm \(Figure.ratio(ratio)), toastd's CPU for that add \(cpu) µs")
            case .released: verdicts.append("with the code pages let go of \(Figure.ratio(ratio))")
            case .smallPages:
                verdicts.append("with the hot code in small pages \(Figure.ratio(ratio)), toastd's CPU for that add \(cpu) µs")
            case .shippedCClient: verdicts.append("the C client \(Figure.ratio(ratio)) (\(Figure.ratio(pausedRatio)) after a pause)")
            case .cEcho: verdicts.append("a C echo server \(Figure.ratio(ratio)) (\(Figure.ratio(pausedRatio)) after a pause)")
            }
            table.add(
                kind.label, median(groupMemory.map(\.pss)), median(groupMemory.map(\.anonymous)), median(groupMemory.map(\.rss)),
                Figure.fixed(groupWakeups.median, 2), Figure.fixed(first.median), Figure.fixed(next.median), Figure.ratio(ratio),
                Figure.fixed(paused.median), Figure.ratio(pausedRatio), cpu,
                "\(serverFaults) / \(clientFaults)", target
            )
        }
        if let dunst = programs.dunstPID {
            let memory = ChildProcess.smaps(of: dunst)
            table.add(
                "dunst, idle (peer)", Figure.fixed(Double(memory.pss) / 1024, 1), Figure.fixed(Double(memory.anonymous) / 1024, 1),
                Figure.fixed(Double(memory.rss) / 1024, 1), "", "", "", "", "", "", "", "", ""
            )
        }
        print("## 8. At rest\n\n" + table.markdown + "\n")
        print(
            verdicts.joined(separator: "; ")
                + ". Wakeups: every thread's context switches over the rest's last \(Int(window)) s, from /proc, per minute. "
                + "Next: the median of the five requests right after the first; after a pause: of \(Self.pauses) more, each "
                + "\(Figure.fixed(Self.pause, 0)) s after the one before. "
                + "Server CPU: all its threads' (/proc/PID/task/*/schedstat) while the first request ran, and per request over the next five; "
                + "major faults: the server's over the first request, and its client's, summed over the group's servers.\n"
        )
        print("The wakes in order, each its first request and the server's CPU for it: " + wakes.joined(separator: "; ") + ".\n")
    }

    /// How long the requests measured after a pause wait, each, and how many.
    static let pause = 1.0
    static let pauses = 3

    /// What one daemon's first request after the rest cost, the five right
    /// after it, and the ones after a pause.
    struct Woken {
        var first: Double
        var next: Double
        var paused: Double
        var firstCPU: Double
        var nextCPU: Double
        var serverFaults: Int
        var clientFaults: Int
        var clientRead: Int
    }

    /// The order the resting daemons are woken in (indices into `kinds`):
    /// a round takes one daemon of each group, and every other round goes
    /// through the groups backwards. The first requests after a long rest
    /// pay more than the later ones whatever the server (the machine wakes
    /// too), so waking group by group favoured the groups woken last: the
    /// code pages kept looked faster than shipped in seven full runs of
    /// eight, and measured slower woken in turns (docs/BENCHMARKS.md, "The
    /// code pages, woken in turns").
    static func wakeOrder(_ kinds: [Resting.Kind]) -> [Int] {
        var groups = Resting.Kind.allCases.map { kind in kinds.indices.filter { kinds[$0] == kind } }.filter { !$0.isEmpty }
        var order: [Int] = []
        var round = 0
        while groups.contains(where: { !$0.isEmpty }) {
            for group in (round % 2 == 0 ? Array(groups.indices) : groups.indices.reversed()) where !groups[group].isEmpty {
                order.append(groups[group].removeFirst())
            }
            round += 1
        }
        return order
    }

    /// Every thread's voluntary and involuntary context switches, from /proc.
    static func contextSwitches(_ pid: pid_t) -> Int {
        var total = 0
        for thread in threads(of: pid) {
            guard let status = ProcFile.read("/proc/\(pid)/task/\(thread)/status") else { continue }
            // "voluntary_ctxt_switches:\t12" and "nonvoluntary_ctxt_switches:\t3"
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(String(line.filter(\.isNumber))) ?? 0
            }
        }
        return total
    }

    /// The ids of a process's threads, from /proc.
    static func threads(of pid: pid_t) -> [String] {
        ProcFile.numberedEntries("/proc/\(pid)/task") ?? []
    }
}
