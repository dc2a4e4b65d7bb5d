// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CAllocationCounter
import CommandLineSupport
import ToastBench

#if canImport(Glibc)
import Glibc
#endif

/// toast-bench: toastd's benchmarks and soak (scripts/bench.sh and
/// scripts/soak.sh build what it needs and run it).
struct ToastBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toast-bench",
        abstract: "Measure toastd against its peers and its floor, and soak it.",
        subcommands: [Run.self, Soak.self, NIOEcho.self, NotifyRate.self, IngestRate.self, FanOutSteps.self, FanOutViewer.self, FuzzReplayCommand.self],
        defaultSubcommand: Run.self
    )

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Run benchmark scenarios and print Markdown tables.")
        @Option(help: "toastd to measure (a release build).") var toastd: String
        @Option(help: "toastctl to measure (as installed: its front, toastctl-full beside it).") var toastctl: String
        @Option(name: .customLong("c-oneshot"), help: "bench/oneshot.c, built.") var cOneShot: String
        @Option(name: .customLong("c-echo"), help: "bench/echo.c, built.") var cEcho: String
        @Option(name: .customLong("nio-echo"), help: "Sources/nio-echo built as toastd is, for the start-up's swift-nio floor.") var nioEcho: String?
        @Option(name: .customLong("toastd-dynamic"), help: "toastd linked dynamically, for its idle RSS beside --toastd's.") var toastdDynamic: String?
        @Option(help: "socat, for the one-shot comparison.") var socat: String?
        @Option(name: .customLong("notify-send"), help: "notify-send, when dunst runs on the session bus in the environment.") var notifySend: String?
        @Option(name: .customLong("dunst-pid"), help: "dunst's pid, for its idle RSS.") var dunstPID: Int32?
        @Option(name: .customLong("peer-memory"), help: "bench/peers-memory.sh's output, for the memory section's dunst and mako rows.") var peerMemory: String?
        @Flag(help: "Fewer samples: a quick, rougher look.") var quick = false
        @Option(name: .customLong("rest-seconds"), help: "How long the rest scenario's daemons rest (default 600, 40 with --quick).") var restSeconds: Double?
        @Argument(help: "Scenarios: oneshot, ingest (with the rules), fanout, memory, scheduler, dbus, startup, rest, regex, libraries (default: all but regex, which ingest includes, and libraries). The rest scenario's daemons rest while the others run.") var scenarios: [String] = []

        func run() throws {
            var programs = BenchmarkSuite.Programs(
                toastd: toastd, toastctl: toastctl, cOneShot: cOneShot, cEcho: cEcho, bench: Self.selfPath()
            )
            programs.socat = socat
            programs.nioEcho = nioEcho
            programs.toastdDynamic = toastdDynamic
            programs.notifySend = notifySend
            programs.dunstPID = dunstPID
            programs.peerMemory = peerMemory
            programs.allocations = { toastd_allocation_count() }
            let suite = BenchmarkSuite(programs: programs, quick: quick, print: writeLine)
            let chosen = scenarios.isEmpty ? ["oneshot", "ingest", "fanout", "memory", "scheduler", "dbus", "startup", "rest"] : scenarios
            let resting = chosen.contains("rest") ? try suite.beginRest(seconds: restSeconds ?? (quick ? 40 : 600)) : nil
            for scenario in chosen {
                switch scenario {
                case "oneshot": try suite.oneShot()
                case "ingest": try suite.ingest()
                case "fanout": try suite.fanOut()
                case "memory": try suite.memory()
                case "scheduler": suite.scheduler()
                case "dbus": try suite.dbus()
                case "regex": try suite.regexes()
                case "libraries": try suite.libraries()
                case "startup": try suite.startup()
                case "rest": break
                default: throw ValidationError("unknown scenario '\(scenario)'")
                }
            }
            if let resting { try suite.endRest(resting) }
        }

        static func selfPath() -> String {
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        }
    }

    struct Soak: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "soak", abstract: "Everything at once against one toastd, then check it came through.")
        @Option(help: "toastd to soak.") var toastd: String
        @Option(help: "How long the load runs, in seconds.") var seconds: Double = 20
        @Option(help: "Clients adding and updating.") var clients = 200
        @Option(help: "Subscribers, stalled ones included.") var subscribers = 20
        @Option(help: "Subscribers that never read.") var stalled = 5
        @Option(name: .customLong("rss-limit-mib"), help: "The bound on toastd's peak RSS.") var rssLimitMiB = 256

        func run() throws {
            let server = try ServerUnderTest(
                name: "toastd", executable: toastd,
                arguments: ["--socket", "{socket}", "--state-dir", "{state}", "--log-level", "warning", "--log-target", "stderr", "--max-connections", "1024", "--subscriber-lag-timeout", "2"]
            )
            defer { server.stop() }
            var soak = ToastBench.Soak(seconds: seconds)
            soak.clients = clients
            soak.subscribers = subscribers
            soak.stalled = stalled
            soak.rssLimitKiB = rssLimitMiB * 1024
            let report = try soak.run(server: server)
            print(report.summary(soak: soak))
            if !report.failures.isEmpty {
                for failure in report.failures { printError("soak: \(failure)") }
                throw ExitCode(1)
            }
        }
    }

    struct NotifyRate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notify-rate",
            abstract: "A persistent client's synchronous Notify calls against the server on a bus (for profiling it)."
        )
        @Option(help: "The bus's address (default: DBUS_SESSION_BUS_ADDRESS).") var address: String?
        @Option(help: "How long to call, in seconds.") var seconds: Double = 5
        @Flag(help: "Call GetServerInformation instead: the bus's floor under a call.") var floor = false
        func run() throws {
            guard let address = address ?? getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }) else {
                throw ValidationError("no bus: give --address or set DBUS_SESSION_BUS_ADDRESS")
            }
            let caller = try DBusBenchmark.Caller(name: "Notify", address: address, call: floor ? .serverInformation : .notify)
            let rate = try DBusBenchmark.rates([caller], rounds: 1, seconds: seconds)[0]
            print(
                "\(Figure.count(rate.callsPerSecond)) calls/s, median \(Figure.fixed(rate.latencies.median)) ms, "
                    + "p99 \(Figure.fixed(rate.latencies.percentile(99))) ms"
            )
        }
    }

    struct IngestRate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ingest-rate",
            abstract: "The ingest scenario's pipelined adds against a server already listening (for profiling it, and for paired runs of two builds)."
        )
        @Option(help: "The server's socket.") var socket: String
        @Option(help: "Connections, each with its own stream of adds.") var connections = 1
        @Option(help: "Adds on each connection.") var adds = 40_000
        func run() throws {
            let result = try IngestBenchmark.run(socket: socket, connections: connections, perConnection: adds)
            print("\(Figure.count(result.perSecond)) acked adds/s, \(result.errors) errors")
        }
    }

    struct FanOutSteps: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fanout-steps",
            abstract: "The fan-out scenario in lockstep against a server already listening: each add read by every subscriber before the next (for counting instructions per subscriber under callgrind)."
        )
        @Option(help: "The server's socket.") var socket: String
        @Option(help: "Subscribers, each on a connection of its own.") var subscribers = 128
        @Option(help: "Adds, one at a time.") var adds = 200
        func run() throws {
            let read = try FanOutBenchmark.lockstep(socket: socket, subscribers: subscribers, samples: adds)
            print("\(adds) adds, \(read) presented events read")
        }
    }

    struct FanOutViewer: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fanout-viewer", abstract: "One subscriber of the fan-out scenario, in a process of its own.", shouldDisplay: false
        )
        @Option(help: "toastd's socket.") var socket: String
        @Option(help: "Presented events to wait for.") var samples: Int
        @Option(help: "The message prefix of this run's toasts.") var tag: String
        func run() throws { try FanOutBenchmark.view(socket: socket, samples: samples, tag: tag, emit: writeLine) }
    }

    struct FuzzReplayCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fuzz-replay",
            abstract: "The fuzz target's own work over a corpus, without libFuzzer or its instrumentation: the ceiling of a fuzzing run's executions a second."
        )
        @Argument(help: "Input files, or corpus directories (the files directly inside).") var paths: [String]
        @Option(help: "How many times to run every input.") var rounds = 5
        func validate() throws {
            guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        }
        func run() throws {
            let inputs = try FuzzReplay.inputs(at: paths)
            guard !inputs.isEmpty else { throw ValidationError("no inputs in \(paths.joined(separator: ", "))") }
            let outcome = FuzzReplay.run(inputs, rounds: rounds)
            for (name, problems) in outcome.violations {
                for problem in problems { printError("toast-bench: \(name): \(problem)") }
            }
            print(
                "\(outcome.inputs) inputs of \(Figure.count(outcome.meanBytes)) bytes on average, \(Figure.count(Double(outcome.executions))) executions "
                    + "in \(Figure.fixed(outcome.seconds)) s: \(Figure.count(outcome.perSecond)) a second, \(outcome.violations.count) inputs with violations"
            )
            if !outcome.violations.isEmpty { throw ExitCode(1) }
        }
    }

    struct NIOEcho: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "nio-echo", abstract: "Serve the swift-nio line-echo baseline.")
        @Option(help: "The socket to listen on.") var socket: String
        func run() throws { try NIOEchoServer.serve(socket: socket) }
    }
}

/// A line straight to stdout's descriptor, unbuffered: each table shows as
/// soon as it is done, and a fan-out viewer's `ready` reaches its reader
/// at once.
func writeLine(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

ToastBenchCommand.main()
