// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import ToastCore

@testable import ToastBench

/// The load generators and their parsers: if these drift from the wire
/// format, the benchmarks and the soak would measure or check nothing.
@Suite("Benchmark and soak tools")
struct LoadToolTests {
    @Test func theWorkloadIsValidAndMixed() throws {
        let workload = Workload()
        var roles: Set<String> = []
        var alignments: Set<String> = []
        var reused = 0
        for index in 0..<300 {
            let line = workload.addLine(stream: index % 7, index: index)
            #expect(line.last == 10)
            let envelope = try WireDecoder.decode(line: line.dropLast()).get()
            guard case .command(.add(let toast)) = envelope.request else {
                Issue.record("not an add: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            roles.insert(toast.role.rawValue)
            alignments.insert(toast.alignment.rawValue)
            if toast.reuseID != nil { reused += 1 }
            #expect(toast.duration != nil && toast.duration != .indefinite, "every workload toast expires")
        }
        #expect(roles.count == 5)
        #expect(alignments.count == 3)
        #expect((60...140).contains(reused), "about a third deduplicate: \(reused)")
    }

    @Test func percentilesAreNearestRank() {
        let samples = Samples((1...100).map(Double.init))
        #expect(samples.median == 50)
        #expect(samples.percentile(99) == 99)
        #expect(samples.percentile(100) == 100)
        #expect(Samples([7]).percentile(99) == 7)
        #expect(Samples().median.isNaN)
    }

    @Test func aRatioIsTheMedianOfEachRoundsOwn() {
        // A fast round and a slow one: the subjects move together, 2:1 in
        // every round, while the medians of each alone come from different
        // rounds and give 2.5:1.
        var rounds = Rounds(subjects: 2)
        rounds.record([100, 50])
        rounds.record([500, 250])
        rounds.record([1_000, 500])
        rounds.record([40, 20])
        #expect(rounds.count == 4)
        #expect(rounds.ratio(0, to: 1) == 2)
        #expect(rounds.ratio(1, to: 0) == 0.5)
        #expect(rounds.subjects[0].median == 100)
        #expect(rounds.subjects[1].median == 50)
        var uneven = Rounds(subjects: 2)
        uneven.record([90, 30])
        uneven.record([10, 10])
        uneven.record([50, 10])
        #expect(uneven.ratio(0, to: 1) == 3, "per round 3, 1 and 5")
        #expect(uneven.ratioRange(0, to: 1) == 1...5)
        #expect(rounds.ratioRange(1, to: 0) == 0.5...0.5)
        #expect(uneven.subjects[0].median / uneven.subjects[1].median == 5)
    }

    @Test func figuresRead() {
        #expect(Figure.count(1_234_567) == "1,234,567")
        #expect(Figure.fixed(1.5, 2) == "1.50")
        #expect(Figure.ratio(2) == "2.00×")
        #expect(Figure.fixed(863.7, 0) == "864")
        #expect(Figure.fixed(.nan) == "n/a")
    }

    @Test func theSoakFindsAToastsIDInEventsAndReplies() {
        let record = ToastRecord(
            id: 4_321, toast: Toast(message: "m", actions: [ToastAction(id: "9", label: "Nine")]), state: .shown,
            repeatCount: 1, createdAt: 1, presentedAt: 1, expiresAt: nil
        )
        let event = WireEncoder.eventLine(ToastEvent(seq: 12, time: 1, kind: .presented(record)))
        #expect(Soak.toastID(in: event[...]) == 4_321)
        let reply = WireEncoder.replyLine(ref: 77, .added(record, deduped: false, replaced: nil))
        #expect(Soak.toastID(in: reply[...]) == 4_321)
        #expect(Soak.toastID(in: Array(#"{"ok":true,"result":{"cleared":3}}"#.utf8)[...]) == nil)
    }

    @Test func fanOutReadsTheSampleNumber() {
        let needle = Array(#""message":"fanout-1-"#.utf8)
        let line = Array(#"{"event":"presented","toast":{"message":"fanout-1-42","scene":"x"}}"#.utf8)
        #expect(FanOutBenchmark.sample(in: line[...], needle: needle, samples: 100) == 42)
        // Not this run's sample, not a presented event, or past the samples.
        #expect(FanOutBenchmark.sample(in: line[...], needle: needle, samples: 42) == nil)
        #expect(FanOutBenchmark.sample(in: Array(#"{"event":"updated","toast":{"message":"fanout-1-4"}}"#.utf8)[...], needle: needle, samples: 100) == nil)
        #expect(FanOutBenchmark.sample(in: Array("{}".utf8)[...], needle: needle, samples: 100) == nil)
    }

    /// The fan-out scenario against the real toastd, with each kind of
    /// reader: one epoll thread (waiting, then polling) and a viewer process
    /// per subscriber (this package's own toast-bench, beside the tests).
    @Test func fanOutMeasuresEveryKindOfReaderAgainstTheRealToastd() throws {
        let binaries = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        let directory = FileManager.default.fileExists(atPath: binaries.appending(path: "toastd").path)
            ? binaries : binaries.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readers: [FanOutBenchmark.Readers] = [
            .oneThread, .oneSpinningThread, .processPerSubscriber(executable: directory.appending(path: "toast-bench").path),
        ]
        for reader in readers {
            let server = try ServerUnderTest(
                name: "toastd", executable: directory.appending(path: "toastd").path,
                arguments: ["--socket", "{socket}", "--log-level", "error", "--ephemeral"]
            )
            defer { server.stop() }
            let latencies = try FanOutBenchmark.run(socket: server.socket, subscribers: 3, samples: 4, readers: reader, pauseMicroseconds: 0)
            #expect(latencies.count == 12, "\(reader)")
            // Every arrival after its add was written, and within the run.
            #expect(latencies.values.allSatisfy { $0 > 0 && $0 < 20_000_000 }, "\(reader): \(latencies.values)")
        }
    }

    /// The lockstep run that callgrind counts: every add read by every
    /// subscriber, against the real toastd.
    @Test func theLockstepFanOutWaitsForEverySubscriber() throws {
        let binaries = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        let directory = FileManager.default.fileExists(atPath: binaries.appending(path: "toastd").path)
            ? binaries : binaries.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let server = try ServerUnderTest(
            name: "toastd", executable: directory.appending(path: "toastd").path,
            arguments: ["--socket", "{socket}", "--log-level", "error", "--ephemeral"]
        )
        defer { server.stop() }
        #expect(try FanOutBenchmark.lockstep(socket: server.socket, subscribers: 3, samples: 5) == 15)
        // A server that never publishes: the first subscriber's wait ends in an error, not a hang.
        let floor = try ServerUnderTest(name: "nio-echo", executable: directory.appending(path: "toast-bench").path, arguments: ["nio-echo", "--socket", "{socket}"])
        defer { floor.stop() }
        #expect(throws: BenchError.self) { try FanOutBenchmark.lockstep(socket: floor.socket, subscribers: 1, samples: 1, timeout: 300) }
    }

    /// The fan-out floor (bench/echo.c --fanout, built here with cc) answers
    /// the benchmark's subscriptions and adds and sends each add on to every
    /// subscriber, so the benchmark reads it as it reads toastd.
    @Test func theCFanOutFloorServesTheFanOutBenchmark() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = FileManager.default.temporaryDirectory.appending(path: "toast-bench-floor-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = directory.appending(path: "echo").path
        let compiler = try ChildProcess(
            "/usr/bin/env", ["cc", "-O2", "-D_GNU_SOURCE", "-o", program, root.appending(path: "bench/echo.c").path],
            output: directory.appending(path: "cc.log").path
        )
        try #require(compiler.wait() == 0, "cc bench/echo.c failed")
        let server = try ServerUnderTest(name: "c-fanout", executable: program, arguments: ["--fanout", "{socket}"])
        defer { server.stop() }
        let latencies = try FanOutBenchmark.run(socket: server.socket, subscribers: 3, samples: 5, readers: .oneThread, pauseMicroseconds: 0)
        #expect(latencies.count == 15)
        #expect(latencies.values.allSatisfy { $0 > 0 && $0 < 20_000_000 }, "\(latencies.values)")
    }
}

extension LoadToolTests {
    /// A viewer that cannot be started leaves nothing behind: not the
    /// viewers started before it, not their files, not their directory.
    @Test func viewersThatFailToStartLeaveNoDirectory() throws {
        let parent = FileManager.default.temporaryDirectory.appending(path: "toast-bench-parent-\(getpid())").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        #expect(throws: BenchError.self) {
            _ = try FanOutBenchmark.Viewers(
                executable: parent + "/no-such-viewer", socket: parent + "/s.sock", count: 3, samples: 1, tag: "t", parent: parent
            )
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == [])
    }

    @Test func theSoakReadsAnErrorReplysCode() {
        let reply = Array(#"{"error":{"code":"queue_full","message":"m"},"ok":false}"#.utf8)
        #expect(Soak.errorCode(in: reply[...]) == "queue_full")
        #expect(Soak.errorCode(in: Array(#"{"ok":false}"#.utf8)[...]) == "unknown")
    }

    @Test func needlesAreFoundAtTheVeryEnd() {
        let line = Array(#"{"id":12"#.utf8)[...]
        #expect(line.integer(after: Array(#""id":"#.utf8)) == 12)
        #expect(line.contains(Array("12".utf8)))
        #expect(!line.contains(Array("123".utf8)))
    }

    /// A small size is timed over as many operations as a large one, on
    /// freshly filled schedulers that each take at most half their held
    /// count, so the held count stays what the row says.
    @Test func aSchedulerBatchSpreadsOverFreshSchedulersOfTheSizeItNames() {
        for operation in SchedulerBenchmark.Operation.allCases {
            // Each run reads the counter twice (before, after): one "allocation" a run.
            nonisolated(unsafe) var reads: UInt64 = 0
            let sample = SchedulerBenchmark.measure(operation, held: 10, batch: 12) {
                reads += 1
                return reads / 2
            }
            #expect(sample.nanoseconds > 0)
            // 12 operations in runs of at most 5: 3 runs (expire: ticks of 3
            // shown toasts, one tick a run, so 4 runs of 3).
            let runs = operation == .expire ? 4.0 : 3.0
            #expect(sample.allocations == runs / 12, "\(operation)")
        }
    }
}

/// The rest benchmark's accounts of a server: if they read /proc wrong, its
/// table would blame or spare the server for nothing.
@Suite("The rest benchmark's accounts")
struct RestAccountTests {
    @Test func aServersCPUCountsEveryThreadOfIt() throws {
        let pid = getpid()
        #expect(BenchmarkSuite.threads(of: pid).count >= 1)
        // Another thread of this process spins for 30 ms of its own CPU time,
        // and lives on until the account is taken (an ended thread leaves /proc).
        let spun = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let spinner = Thread {
            var usage = timespec()
            repeat {
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &usage)
            } while usage.tv_sec == 0 && usage.tv_nsec < 30_000_000
            spun.signal()
            release.wait()
        }
        let cost = BenchmarkSuite.cost(of: pid) {
            spinner.start()
            spun.wait()
        }
        release.signal()
        // At least the spinner's (other tests in this process may add theirs).
        #expect(cost.cpu >= 25_000_000, "\(cost.cpu) ns")
    }

    @Test func aClientRunIsTimedAndAFailureThrows() throws {
        let run = try ChildProcess.run("/bin/true", [])
        #expect(run.elapsed > 0)
        #expect(throws: BenchError.self) { try ChildProcess.run("/bin/false", []) }
    }
}
