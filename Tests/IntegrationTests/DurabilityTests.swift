// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// Durable toastd with real processes and a real database: restarts keep
/// the stack, kill -9 at any instant loses nothing acknowledged, and faults
/// of the state directory never stop the daemon (issue #12).
@Suite("Durable state, end to end", .serialized)
struct DurabilityTests {
    /// A toastd started and killed by hand on a socket and state directory.
    final class Daemon {
        let directory: URL
        let socket: String
        let state: String
        private(set) var pid: pid_t = 0
        var log: String { directory.appending(path: "toastd.log").path }

        init(state: String? = nil) throws {
            directory = FileManager.default.temporaryDirectory.appending(path: "toastd-dur-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            socket = directory.appending(path: "toastd.sock").path
            self.state = state ?? directory.appending(path: "state").path
        }

        /// Starts toastd (through `wrapper`, e.g. unshare) and waits until it accepts.
        func start(_ extra: [String] = [], wrapper: [String] = []) throws {
            let toastd = DaemonFixture.binaryDirectory.appending(path: "toastd").path
            let arguments = ["--socket", socket, "--state-dir", state, "--log-level", "warning"] + extra
            let command = wrapper.isEmpty ? [toastd] + arguments : wrapper + [toastd] + arguments
            pid = try DaemonFixture.spawn(command[0], Array(command.dropFirst()), stderr: log)
            SocketFileProbe.waitUntilAccepting(socket)
        }

        func kill9() {
            kill(pid, SIGKILL)
            DaemonFixture.wait(pid)
            pid = 0
        }

        /// SIGTERM, then its exit status.
        @discardableResult
        func stop() -> Int32 {
            guard pid != 0 else { return 0 }
            kill(pid, SIGTERM)
            let status = DaemonFixture.wait(pid)
            pid = 0
            return status
        }

        /// Starts toastd on a tmpfs of `size` mounted over its state
        /// directory, in a mount namespace of its own (a disk that fills).
        func startOnTmpfs(size: String, filled: Bool = false) throws {
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            // `filled`: a file takes all of it before toastd starts.
            let fill = filled ? #"{ dd if=/dev/zero of="$0/filler" bs=4096 2>/dev/null || true; } && "# : ""
            try start(wrapper: [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                #"mount -t tmpfs -o size=\#(size),mode=0700 tmpfs "$0" && \#(fill)exec "$@""#, state,
            ])
        }

        func request(_ line: String) throws -> JSONValue {
            let connection = try ToastConnection(path: socket)
            try connection.sendLine(Array(line.utf8))
            return try connection.readReply(timeout: 10_000)
        }

        /// Every live toast, page after page (a reply holds at most 1,000).
        func toasts() throws -> [JSONValue] {
            var toasts: [JSONValue] = []
            var offset: Int64? = 0
            while let from = offset {
                let result = try request(#"{"op":"list","offset":\#(from)}"#)["result"]
                if case .array(let page)? = result?["toasts"] { toasts += page }
                offset = result?["next"]?.intValue
            }
            return toasts
        }

        /// Every history entry, page after page.
        func history() throws -> [JSONValue] {
            var entries: [JSONValue] = []
            var before: Int64?
            repeat {
                let page = before.map { #"{"op":"history","limit":9007199254740991,"before":\#($0)}"# } ?? #"{"op":"history","limit":9007199254740991}"#
                let result = try request(page)["result"]
                if case .array(let items)? = result?["entries"] { entries += items }
                before = result?["next"]?.intValue
            } while before != nil
            return entries
        }

        deinit {
            stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static var canUnshare: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") }

    @Test func aRestartKeepsTheStackThePausedStateTheQueueOrderAndTheCounters() throws {
        let daemon = try Daemon()
        try daemon.start(["--max-visible-top", "1"])
        for message in ["shown", "first", "second", "third"] {
            _ = try daemon.request(#"{"op":"add","toast":{"message":"\#(message)","duration":"indefinite"}}"#)
        }
        _ = try daemon.request(#"{"op":"add","toast":{"message":"second","duration":"indefinite"}}"#)
        _ = try daemon.request(#"{"op":"pause"}"#)
        _ = try daemon.request(#"{"op":"add","toast":{"message":"gone","duration":"indefinite"}}"#)
        #expect(try daemon.request(#"{"op":"remove","id":5}"#)["ok"] == true)
        let before = try daemon.request(#"{"op":"status"}"#)["result"]!
        let listed = try daemon.toasts()
        daemon.kill9()

        try daemon.start(["--max-visible-top", "1"])
        let after = try daemon.request(#"{"op":"status"}"#)["result"]!
        #expect(try daemon.toasts() == listed)
        #expect(try daemon.toasts().map { $0["message"]?.stringValue ?? "" } == ["shown", "first", "second", "third"])
        #expect(try daemon.toasts()[2]["repeat"] == 2)
        #expect(after["paused"] == true)
        #expect(after["instance"] == before["instance"])
        #expect(after["lastSequence"] == before["lastSequence"])
        #expect(after["persistence"] == "durable")
        #expect(try daemon.history().map { $0["toast"]?["message"] } == ["gone"])
        // Ids go on: the next toast is 6, not a reused 1.
        #expect(try daemon.request(#"{"op":"add","toast":{"message":"next"}}"#)["result"]?["id"] == 6)
        // Restore brings a history entry back as a new toast.
        let restored = try daemon.request(#"{"op":"restore","latest":true}"#)
        #expect(restored["result"]?["restored"] == 5)
        #expect(restored["result"]?["id"] == 7)
        #expect(try daemon.history().isEmpty)
    }

    /// A toast shown at the crash keeps its expiry: one whose time ran out
    /// while toastd was down ends `expired` at the start; one with time left
    /// is shown again until then. A source bound to a connection of the last
    /// run has ended with that connection.
    @Test func afterACrashShownToastsKeepTheirExpiryAndBoundSourcesEnd() throws {
        let daemon = try Daemon()
        try daemon.start()
        _ = try daemon.request(#"{"op":"add","toast":{"message":"short","duration":0.3}}"#)
        let long = try daemon.request(#"{"op":"add","toast":{"message":"long","duration":60}}"#)["result"]!["toast"]!
        let bound = try ToastConnection(path: daemon.socket)
        _ = try bound.request(["op": "hello", "version": 1, "source": "backup", "bindSource": true], timeout: 5_000)
        _ = try bound.request(
            ["op": "add", "toast": ["message": "backing up", "progress": "indeterminate", "invalidation": ["presentationDismissed"]]],
            timeout: 5_000
        )
        daemon.kill9()
        usleep(500_000)
        try daemon.start()
        let live = try daemon.toasts()
        #expect(live.map { $0["message"] } == ["long"])
        #expect(live.first?["expiresAt"] == long["expiresAt"])
        let ended = Dictionary(uniqueKeysWithValues: try daemon.history().map { ($0["toast"]!["message"]!.stringValue!, $0) })
        #expect(ended["short"]?["reason"] == "expired")
        #expect(ended["backing up"]?["reason"] == "invalidated")
    }

    /// The crash test: 8 clients pipeline adds, updates and removes; toastd
    /// is killed with SIGKILL at a random instant, 20 times. After each
    /// restart, what the clients were told must hold.
    @Test func killNineAtRandomInstantsLosesNothingAcknowledged() throws {
        let daemon = try Daemon()
        let flags = ["--history-size", "1000000", "--max-toasts", "1000000", "--max-toasts-per-source", "1000000", "--log-level", "error"]
        let ledger = Locked(Ledger())
        var generator = SystemRandomNumberGenerator()
        let rounds = Int(ProcessInfo.processInfo.environment["TOASTD_CRASH_ROUNDS"] ?? "") ?? 20
        for round in 0..<rounds {
            try daemon.start(flags)
            try ledger.withLock { try $0.check(toasts: daemon.toasts(), history: daemon.history(), round: round) }
            let socket = daemon.socket
            let clients = (0..<8).map { client in
                Thread { Self.pipeline(socket: socket, client: client, round: round, ledger: ledger) }
            }
            clients.forEach { $0.start() }
            usleep(UInt32.random(in: 40_000...300_000, using: &generator))
            daemon.kill9()
            while clients.contains(where: { !$0.isFinished }) { usleep(5_000) }
        }
        try daemon.start(flags)
        try ledger.withLock { try $0.check(toasts: daemon.toasts(), history: daemon.history(), round: rounds) }
        let acknowledged = ledger.withLock { $0.added.count }
        #expect(acknowledged > 100, "the clients got too few acknowledgements to test anything: \(acknowledged)")
        #expect(ledger.withLock { $0.violations } == [])
    }

    /// What the clients were told, and what they sent but were not told.
    struct Ledger {
        /// id → every message it was given, in the order sent, and how many of them were acknowledged.
        var added: [Int64: (messages: [String], acknowledged: Int)] = [:]
        var removed: Set<Int64> = []
        var violations: [String] = []

        mutating func check(toasts: [JSONValue], history: [JSONValue], round: Int) throws {
            var live: [Int64: JSONValue] = [:]
            for toast in toasts {
                let id = toast["id"]!.intValue!
                if live.updateValue(toast, forKey: id) != nil { violations.append("round \(round): id \(id) is live twice") }
            }
            var ended: [Int64: JSONValue] = [:]
            for entry in history {
                let id = entry["toast"]!["id"]!.intValue!
                if ended.updateValue(entry, forKey: id) != nil { violations.append("round \(round): id \(id) ended twice") }
                if live[id] != nil { violations.append("round \(round): id \(id) is live and in the history") }
            }
            for (id, record) in added {
                if let toast = live[id] {
                    // It shows the last acknowledged message, or one sent after it.
                    let message = toast["message"]?.stringValue ?? ""
                    if !record.messages[(record.acknowledged - 1)...].contains(message) {
                        violations.append("round \(round): toast \(id) shows '\(message)', older than what was acknowledged")
                    }
                } else if let entry = ended[id] {
                    // Nothing ends these toasts but a remove (perhaps one not acknowledged).
                    if entry["reason"] != "removed" { violations.append("round \(round): toast \(id) ended \(entry["reason"]!)") }
                } else {
                    violations.append("round \(round): acknowledged toast \(id) is lost")
                }
            }
            for id in removed where live[id] != nil {
                violations.append("round \(round): removed toast \(id) came back")
            }
        }
    }

    /// One client: batches of pipelined requests until the daemon dies.
    static func pipeline(socket: String, client: Int, round: Int, ledger: Locked<Ledger>) {
        guard let connection = try? ToastConnection(path: socket) else { return }
        var mine: [Int64] = []
        var serial = 0
        var generator = SystemRandomNumberGenerator()
        while true {
            var sent: [(kind: String, id: Int64?, message: String)] = []
            var lines: [UInt8] = []
            for _ in 0..<16 {
                serial += 1
                let message = "c\(client)-r\(round)-\(serial)"
                let choice = Int.random(in: 0..<10, using: &generator)
                var request: JSONValue
                if choice < 2, let id = mine.randomElement(using: &generator) {
                    request = ["op": "update", "id": .int(id), "toast": ["message": .string(message)]]
                    sent.append(("update", id, message))
                    ledger.withLock { $0.added[id]?.messages.append(message) }
                } else if choice < 4, let index = mine.indices.randomElement(using: &generator) {
                    let id = mine.remove(at: index)
                    request = ["op": "remove", "id": .int(id)]
                    sent.append(("remove", id, ""))
                } else {
                    request = ["op": "add", "toast": ["message": .string(message), "duration": "indefinite"]]
                    sent.append(("add", nil, message))
                }
                lines += WireEncoder.line(request)
            }
            do {
                try connection.sendLine(lines)
                for request in sent {
                    let reply = try connection.readReply(timeout: 10_000)
                    guard reply["ok"] == .bool(true) else {
                        ledger.withLock { $0.violations.append("\(request.kind) refused: \(reply.serialized)") }
                        continue
                    }
                    ledger.withLock { ledger in
                        switch request.kind {
                        case "add":
                            let id = reply["result"]!["id"]!.intValue!
                            if ledger.added[id] != nil { ledger.violations.append("id \(id) handed out twice") }
                            ledger.added[id] = ([request.message], 1)
                            mine.append(id)
                        case "update":
                            if let record = ledger.added[request.id!] {
                                ledger.added[request.id!]!.acknowledged = record.messages.lastIndex(of: request.message)! + 1
                            }
                        default:
                            ledger.removed.insert(request.id!)
                        }
                    }
                }
            } catch {
                return
            }
        }
    }

    /// Small steps commit on the event loop with SQLite's own checkpoints
    /// off; toastd checkpoints on its commit thread every so many commits,
    /// so the WAL does not grow with the number of toasts. Without them,
    /// 1,500 one-toast steps write a WAL of more than 8 MiB (checked by
    /// turning them off).
    @Test func theWriteAheadLogStaysSmallOverManySmallCommits() throws {
        let daemon = try Daemon()
        try daemon.start()
        let connection = try ToastConnection(path: daemon.socket)
        for index in 0..<1_500 {
            let reply = try connection.request(
                WireEncoder.request(.command(.add(Toast(message: "step \(index)", duration: .indefinite)))), timeout: 10_000
            )
            try #require(reply["ok"] == true)
        }
        let wal = daemon.state + "/toastd.sqlite-wal"
        let size = (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(size > 0 && size < 8 << 20, "WAL of \(size) bytes")
        daemon.kill9()
        try daemon.start()
        #expect(try daemon.toasts().count == 1_500, "every acknowledged toast survives")
    }

    /// A graceful stop puts the journaled steps (each of these adds, alone
    /// on its connection) in the database before toastd exits: the journal
    /// files are empty after it, toastd exits 0 and says nothing on stderr
    /// (swift-nio complained of a task scheduled on its closed loop when
    /// the last commit outlived the loop), and a restart has every toast.
    @Test func aGracefulStopPutsTheJournaledStepsInTheDatabase() throws {
        let daemon = try Daemon()
        try daemon.start()
        for index in 0..<5 {
            try #require(try daemon.request(#"{"op":"add","toast":{"message":"kept \#(index)","duration":"indefinite"}}"#)["ok"] == true)
        }
        let journal = ["a", "b"].map { daemon.state + "/toastd.journal-" + $0 }
        func sizes() -> [Int] { journal.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? -1 } }
        // The adds are in the journal for 100 ms (`applyAfter`) before
        // the commit thread has them: the stop comes well within that.
        #expect(daemon.stop() == 0)
        #expect(sizes() == [0, 0])
        let log = (try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? ""
        #expect(log.isEmpty, "\(log)")
        try daemon.start()
        #expect(try daemon.toasts().count == 5)
        daemon.stop()
    }

    @Test func aSecondDaemonOnTheSameStateDirectoryRefusesToStart() throws {
        let daemon = try Daemon()
        try daemon.start()
        let second = try DaemonFixture.run(
            DaemonFixture.binaryDirectory.appending(path: "toastd").path,
            ["--socket", daemon.directory.appending(path: "other.sock").path, "--state-dir", daemon.state]
        )
        #expect(second.status == 1)
        #expect(second.stderr.contains("another toastd is running on the state directory \(daemon.state)"), "\(second.stderr)")
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"] == "durable")
    }

    @Test func aCorruptDatabaseIsMovedAsideAndToastdStartsFresh() throws {
        let daemon = try Daemon()
        try FileManager.default.createDirectory(atPath: daemon.state, withIntermediateDirectories: true)
        try Data("this is not a database, it is a shopping list\n".utf8 + Array(repeating: 0, count: 4096))
            .write(to: URL(filePath: daemon.state + "/toastd.sqlite"))
        try daemon.start()
        #expect(try daemon.request(#"{"op":"add","toast":{"message":"fresh"}}"#)["ok"] == true)
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"] == "durable")
        let moved = try FileManager.default.contentsOfDirectory(atPath: daemon.state).filter { $0.contains(".corrupt-") }
        #expect(!moved.isEmpty)
        #expect(try String(contentsOfFile: daemon.log, encoding: .utf8).contains("corrupt"))
    }

    /// A state directory mounted read-only (in a private mount namespace:
    /// chmod does not stop root).
    @Test(.enabled(if: canUnshare)) func aReadOnlyStateDirectoryDegradesToMemory() throws {
        let daemon = try Daemon()
        try FileManager.default.createDirectory(atPath: daemon.state, withIntermediateDirectories: true)
        try daemon.start(wrapper: [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
            #"mount -o bind,ro "$0" "$0" && exec "$@""#, daemon.state,
        ])
        let status = try daemon.request(#"{"op":"status"}"#)["result"]!
        #expect(status["persistence"] == "degraded")
        #expect(status["persistenceReason"]?.stringValue?.contains("Read-only file system") == true, "\(status)")
        #expect(try daemon.request(#"{"op":"add","toast":{"message":"still served"}}"#)["ok"] == true)
        #expect(try daemon.toasts().count == 1)
    }

    /// A tiny tmpfs that fills: commits start failing, toastd logs once,
    /// reports degraded, and keeps acknowledging from memory.
    @Test(.enabled(if: canUnshare)) func aFullFilesystemDegradesToMemoryAndKeepsServing() throws {
        let daemon = try Daemon()
        try daemon.startOnTmpfs(size: "256k")
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"] == "durable")
        let text = String(repeating: "x", count: 4_000)
        for index in 0..<300 {
            let reply = try daemon.request(#"{"op":"add","toast":{"message":"\#(index) \#(text)","duration":"indefinite"}}"#)
            #expect(reply["ok"] == true, "\(reply.serialized.prefix(200))")
        }
        let status = try daemon.request(#"{"op":"status"}"#)["result"]!
        #expect(status["persistence"] == "degraded")
        #expect(status["persistenceReason"]?.stringValue?.contains("full") == true, "\(status)")
        #expect(try daemon.toasts().count == 300)
        let log = try String(contentsOfFile: daemon.log, encoding: .utf8)
        #expect(log.components(separatedBy: "persistence degraded").count == 2, "logged once: \(log)")
    }

    /// Degraded is not for good (issue #38): a disk that fills and then
    /// frees again. toastd tries the store again on a back-off, writes the
    /// whole state it served from memory, and is durable again: the file
    /// then holds every toast, those added while it was degraded too.
    @Test(.enabled(if: canUnshare)) func aDiskThatFreesAgainMakesItDurableAgain() throws {
        let daemon = try Daemon()
        try daemon.startOnTmpfs(size: "512k")
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"] == "durable")
        // The daemon's own view of its state directory (its mount namespace).
        let inside = "/proc/\(daemon.pid)/root" + daemon.state
        let filler = inside + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        try #require(fd >= 0, "errno \(errno)")
        let block = [UInt8](repeating: 1, count: 4_096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)
        for index in 0..<5 {
            #expect(try daemon.request(#"{"op":"add","toast":{"message":"full \#(index)","duration":"indefinite"}}"#)["ok"] == true)
        }
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"] == "degraded")
        unlink(filler)
        var mode: JSONValue?
        for _ in 0..<100 where mode != "durable" {
            usleep(100_000)
            mode = try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"]
        }
        #expect(mode == "durable", "still degraded after the disk freed")
        #expect(try daemon.request(#"{"op":"add","toast":{"message":"after","duration":"indefinite"}}"#)["ok"] == true)
        // What the file holds, read from a copy (toastd holds the database exclusively).
        let copy = FileManager.default.temporaryDirectory.appending(path: "toastd-recovered-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        usleep(300_000)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: inside + "/toastd.sqlite" + suffix) {
            try FileManager.default.copyItem(atPath: inside + "/toastd.sqlite" + suffix, toPath: copy + "/toastd.sqlite" + suffix)
        }
        let count = try DaemonFixture.run(
            "/usr/bin/env", ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM toast').fetchone()[0])", copy + "/toastd.sqlite"]
        )
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "6", "\(count.stdout) \(count.stderr)")
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistenceReason"] == nil)
    }

    /// A disk that was already full at start: toastd serves from memory,
    /// opens the store once the disk frees, and writes what it served.
    @Test(.enabled(if: canUnshare)) func aDiskFullAtStartIsOpenedOnceItFrees() throws {
        let daemon = try Daemon()
        try daemon.startOnTmpfs(size: "512k", filled: true)
        #expect(try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"] == "degraded")
        for index in 0..<3 {
            #expect(try daemon.request(#"{"op":"add","toast":{"message":"early \#(index)","duration":"indefinite"}}"#)["ok"] == true)
        }
        unlink("/proc/\(daemon.pid)/root" + daemon.state + "/filler")
        var mode: JSONValue?
        for _ in 0..<100 where mode != "durable" {
            usleep(100_000)
            mode = try daemon.request(#"{"op":"status"}"#)["result"]?["persistence"]
        }
        #expect(mode == "durable", "the store was never opened after the disk freed")
        #expect(try daemon.toasts().count == 3)
    }
}
