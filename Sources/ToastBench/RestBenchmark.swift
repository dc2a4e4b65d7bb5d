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
        let root = try Self.temporaryDirectory("/tmp/toast-bench-startup-XXXXXX")
        defer { _ = try? ChildProcess.time("/bin/rm", ["-rf", root]) }

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
        for _ in 0..<runs { activated.append(try socketActivatedAdd(activator: activator, state: empty)) }
        let server = try startToastd(state: empty)
        defer { server.stop() }
        let warm = try Self.adds(toastctl: programs.toastctl, socket: server.socket, count: quick ? 10 : 30)
        var activation = Table("first toastctl add", "median ms", "× warm", "runs", "target")
        activation.add("toastd already running (warm)", Figure.fixed(warm.median), "1.00×", "\(warm.count)", "")
        activation.add("socket-activated: toastd started by the add", Figure.fixed(activated.median), Figure.ratio(activated.median / warm.median), "\(runs)", "≤ 3×")
        print(activation.markdown + "\n")
    }

    /// Runs a toastd on `state` (a new directory), lets `fill` talk to it, and stops it.
    private func prepare(state: String, _ fill: (ServerUnderTest) throws -> Void) throws {
        let server = try startToastd(state: state)
        try fill(server)
        server.stop()
    }

    /// Milliseconds from spawning toastd on `state` to its first reply (a `status`).
    private func timeToFirstReply(state: String) throws -> Double {
        let directory = try Self.temporaryDirectory("/tmp/toast-bench-ready-XXXXXX")
        defer { rmdir(directory) }
        let socket = directory + "/s.sock"
        let start = monotonicNanoseconds()
        let process = try ChildProcess(programs.toastd, toastdArguments(socket: socket, state: state), environment: benchEnvironment)
        defer {
            process.terminate()
            unlink(socket)
        }
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

    /// Milliseconds for one `toastctl add` whose connection starts toastd
    /// (through systemd-socket-activate, which execs toastd on it).
    private func socketActivatedAdd(activator: String, state: String) throws -> Double {
        let directory = try Self.temporaryDirectory("/tmp/toast-bench-activate-XXXXXX")
        defer { rmdir(directory) }
        let socket = directory + "/s.sock"
        let environment = benchEnvironment.map { "\($0.key)=\($0.value)" }.flatMap { ["-E", $0] }
        let activated = try ChildProcess(
            activator, ["-l", socket] + environment + [programs.toastd] + toastdArguments(socket: socket, state: state)
        )
        defer {
            activated.terminate()
            unlink(socket)
        }
        var status = stat()
        for _ in 0..<1_000 where stat(socket, &status) != 0 { usleep(5_000) }
        usleep(50_000)  // systemd-socket-activate listens; nothing has connected yet
        let elapsed = try ChildProcess.time(programs.toastctl, ["add", "--socket", socket, "first of the session"])
        return Double(elapsed) / 1e6
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

    static func temporaryDirectory(_ pattern: String) throws -> String {
        var template = Array(pattern.utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        return String(cString: made)
    }

    // MARK: - 8. At rest

    /// Daemons that rest while the other scenarios run, measured by `endRest`.
    public struct Resting {
        /// Who rests, and which client wakes it.
        enum Kind: CaseIterable {
            /// toastd as shipped, woken by `toastctl add` (the figure).
            case shipped
            /// toastd that keeps its code pages (`TOASTD_KEEP_CODE_PAGES`), woken by `toastctl add`.
            case kept
            /// toastd as shipped, woken by bench/oneshot.c: toastd's own share, without toastctl's start.
            case shippedCClient
            /// bench/echo.c woken by bench/oneshot.c: what any process pays to wake after a rest on this machine.
            case cEcho

            var label: String {
                switch self {
                case .shipped: "toastd as shipped (start-up's code pages let go once ready); toastctl add"
                case .kept: "toastd, code pages kept (TOASTD_KEEP_CODE_PAGES=1); toastctl add"
                case .shippedCClient: "toastd as shipped; the C one-shot client (toastd's own share)"
                case .cEcho: "C line echo (bench/echo.c); the C one-shot client (the machine's floor)"
                }
            }
        }

        struct Daemon {
            var server: ServerUnderTest
            var kind: Kind
        }
        var daemons: [Daemon]
        /// Each daemon runs its own copy of the binary: pages shared with
        /// the others would divide its PSS among them.
        var copies: String
        var started: UInt64
        var seconds: Double
    }

    /// Starts the resting servers (three of each toastd woken by toastctl,
    /// two of the others), each after one request, as a session's first
    /// toast; they then rest for `seconds`.
    public func beginRest(seconds: Double) throws -> Resting {
        var daemons: [Resting.Daemon] = []
        let copies = try Self.temporaryDirectory("/tmp/toast-bench-rest-XXXXXX")
        for kind in Resting.Kind.allCases {
            for _ in 0..<(kind == .shipped || kind == .kept ? 3 : 2) {
                let copy = copies + "/\(daemons.count)-" + (kind == .cEcho ? "echo" : "toastd")
                _ = try ChildProcess.time("/bin/cp", [kind == .cEcho ? programs.cEcho : programs.toastd, copy])
                let server =
                    kind == .cEcho
                    ? try ServerUnderTest(name: "c-echo", executable: copy, arguments: ["{socket}"])
                    : try startToastd(environment: kind == .kept ? ["TOASTD_KEEP_CODE_PAGES": "1"] : [:], executable: copy)
                _ = try wake(server, kind, "before the rest")
                daemons.append(.init(server: server, kind: kind))
            }
        }
        return Resting(daemons: daemons, copies: copies, started: monotonicNanoseconds(), seconds: seconds)
    }

    /// One request from the kind's client; its wall time in milliseconds.
    private func wake(_ server: ServerUnderTest, _ kind: Resting.Kind, _ message: String) throws -> Double {
        let elapsed =
            switch kind {
            case .shipped, .kept: try ChildProcess.time(programs.toastctl, ["add", "--socket", server.socket, message])
            case .shippedCClient: try ChildProcess.time(programs.cOneShot, [server.socket, message])
            case .cEcho: try ChildProcess.time(programs.cOneShot, [server.socket, message, "--any-reply"])
            }
        return Double(elapsed) / 1e6
    }

    /// Waits out the rest; counts the daemons' wakeups over its last
    /// minute (10 s with --quick), then measures each: its memory, then
    /// the first request after the rest and the five after it.
    public func endRest(_ resting: Resting) throws {
        defer { _ = try? ChildProcess.time("/bin/rm", ["-rf", resting.copies]) }
        let window = quick ? 10.0 : 60.0
        let due = resting.started + UInt64(max(0, resting.seconds - window) * 1e9)
        let now = monotonicNanoseconds()
        if now < due { usleep(useconds_t((due - now) / 1_000)) }
        let before = resting.daemons.map { Self.contextSwitches($0.server.process.pid) }
        usleep(useconds_t(window * 1e6))
        let minutes = resting.seconds / 60
        var table = Table(
            "after \(Figure.fixed(minutes, minutes < 1 ? 1 : 0)) min at rest", "PSS MiB", "anonymous MiB", "RSS MiB",
            "wakeups / min", "first request ms", "next ms", "first / next", "target"
        )
        var verdicts: [String] = []
        for kind in Resting.Kind.allCases {
            let group = resting.daemons.indices.filter { resting.daemons[$0].kind == kind }
            var memory: [(pss: Int, anonymous: Int, rss: Int)] = []
            var wakeups = Samples(), first = Samples(), next = Samples()
            for index in group {
                let daemon = resting.daemons[index]
                let pid = daemon.server.process.pid
                memory.append(ChildProcess.smaps(of: pid))
                wakeups.append(Double(Self.contextSwitches(pid) - before[index]) * 60 / window)
                first.append(try wake(daemon.server, kind, "after the rest"))
                var following = Samples()
                for request in 0..<5 { following.append(try wake(daemon.server, kind, "next \(request)")) }
                next.append(following.median)
                daemon.server.stop()
            }
            func median(_ values: [Int]) -> String { Figure.fixed(Double(values.sorted()[values.count / 2]) / 1024, 1) }
            let ratio = first.median / next.median
            var target = ""
            if kind == .shipped {
                target = "first ≤ 1.5× next; PSS ≤ dunst's"
                verdicts.append("toastctl add after the rest / the next = \(Figure.ratio(ratio)) (target ≤ 1.5×)")
            }
            if kind == .kept { verdicts.append("with the code pages kept \(Figure.ratio(ratio))") }
            if kind == .cEcho { verdicts.append("a C echo server \(Figure.ratio(ratio))") }
            table.add(
                kind.label, median(memory.map(\.pss)), median(memory.map(\.anonymous)), median(memory.map(\.rss)),
                Figure.fixed(wakeups.median, 2), Figure.fixed(first.median), Figure.fixed(next.median), Figure.ratio(ratio), target
            )
        }
        if let dunst = programs.dunstPID {
            let memory = ChildProcess.smaps(of: dunst)
            table.add(
                "dunst, idle (peer)", Figure.fixed(Double(memory.pss) / 1024, 1), Figure.fixed(Double(memory.anonymous) / 1024, 1),
                Figure.fixed(Double(memory.rss) / 1024, 1), "", "", "", "", ""
            )
        }
        print("## 8. At rest\n\n" + table.markdown + "\n")
        print(
            verdicts.joined(separator: "; ")
                + ". Wakeups: every thread's context switches over the rest's last \(Int(window)) s, from /proc, per minute.\n"
        )
    }

    /// Every thread's voluntary and involuntary context switches, from /proc.
    static func contextSwitches(_ pid: pid_t) -> Int {
        guard let directory = opendir("/proc/\(pid)/task") else { return 0 }
        defer { closedir(directory) }
        var total = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true, let status = ProcFile.read("/proc/\(pid)/task/\(name)/status") else { continue }
            // "voluntary_ctxt_switches:\t12" and "nonvoluntary_ctxt_switches:\t3"
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(String(line.filter(\.isNumber))) ?? 0
            }
        }
        return total
    }
}
