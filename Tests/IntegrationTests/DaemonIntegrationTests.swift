// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// The real toastd and toastctl binaries over a real Unix socket.
@Suite("toastd and toastctl, end to end", .serialized)
struct DaemonIntegrationTests {
    @Test func addPrintsTheIdAndEveryExitStatusMeansWhatItSays() throws {
        let daemon = try DaemonFixture()
        let added = try daemon.toastctl(
            "add", "Build finished", "--title", "CI", "--role", "success", "--duration", "long", "--alignment", "top",
            "--reuse-id", "build", "--action", "undo:Undo"
        )
        #expect(added.status == 0)
        #expect(added.stdout == "1")

        let usage = try daemon.toastctl("add", "x", "--role", "loud")
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--role"))

        let refused = try daemon.toastctl("remove", "99")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not_found"))

        let noDaemon = try daemon.toastctl("status", socket: daemon.directory.appending(path: "none.sock").path)
        #expect(noDaemon.status == 3)
        #expect(noDaemon.stderr.contains("none.sock"))
        #expect(noDaemon.stderr.contains("toastd"))

        let json = try daemon.toastctl("list", "--json")
        let list = try JSONValue.parse(json.stdout)
        guard case .array(let toasts)? = list["toasts"] else { Issue.record("no toasts in \(json.stdout)"); return }
        #expect(toasts.count == 1)
        #expect(toasts.first?["role"] == "success")
        #expect(toasts.first?["actions"] == [["id": "undo", "label": "Undo"]])
    }

    @Test func everyOperationWorksThroughToastctl() throws {
        let daemon = try DaemonFixture()
        #expect(try daemon.toastctl("add", "copying", "--reuse-id", "copy", "--progress", "0.1").stdout == "1")
        #expect(try daemon.toastctl("update", "--reuse-id", "copy", "--progress", "0.8").status == 0)
        #expect(try daemon.toastctl("add", "hud", "--alignment", "center", "--not-dismissible", "--duration", "indefinite").stdout == "2")
        let dismiss = try daemon.toastctl("dismiss", "2")
        #expect(dismiss.status == 1)
        #expect(dismiss.stderr.contains("not_dismissible"))
        #expect(try daemon.toastctl("pause").status == 0)
        #expect(try daemon.toastctl("add", "held").stdout == "3")
        let status = try JSONValue.parse(try daemon.toastctl("status", "--json").stdout)
        #expect(status["paused"] == true)
        #expect(status["queued"] == 1)
        #expect(try daemon.toastctl("resume").status == 0)
        #expect(try daemon.toastctl("clear").stdout == "cleared 2, kept 1")
        #expect(try daemon.toastctl("clear", "--force").stdout == "cleared 1, kept 0")
        let raw = try daemon.toastctl("raw", #"{"op":"list","ref":"r"}"#)
        #expect(raw.stdout.contains(#""ref":"r""#))
        #expect(try daemon.toastctl("raw", #"{"op":"nope"}"#).status == 1)
    }

    @Test func waitReportsTheActionTheDismissalOrTheTimeout() throws {
        let daemon = try DaemonFixture()
        let watcher = try daemon.subscribe()
        let group = DispatchGroup()
        nonisolated(unsafe) var waited: DaemonFixture.Outcome?
        group.enter()
        DispatchQueue.global().async {
            waited = try? daemon.toastctl("add", "Proceed?", "--action", "yes:Yes", "--duration", "indefinite", "--wait")
            group.leave()
        }
        let presented = try watcher.readLine(timeout: 5_000)
        let id = try #require(presented["toast"]?["id"]?.intValue)
        #expect(try daemon.toastctl("invoke", "\(id)", "--action", "yes").status == 0)
        group.wait()
        #expect(waited?.status == 0)
        #expect(waited?.stdout == "yes")

        let expired = try daemon.toastctl("add", "quick", "--duration", "0.2", "--wait")
        #expect(expired.status == 4)
        #expect(expired.stdout == "expired")

        let timedOut = try daemon.toastctl("add", "slow", "--duration", "indefinite", "--wait", "--timeout", "0.3")
        #expect(timedOut.status == 5)
        let after = try JSONValue.parse(try daemon.toastctl("status", "--json").stdout)
        #expect(after["shown"] == 0, "a timed-out --wait removes its toast")
    }

    @Test func runShowsAHudAndReplacesItWithTheResult() throws {
        let daemon = try DaemonFixture()
        let watcher = try daemon.subscribe()
        let failed = try daemon.toastctl("run", "--", "sh", "-c", "echo out; exit 3")
        #expect(failed.status == 3)
        #expect(failed.stdout == "out")
        let hud = try watcher.readLine(timeout: 5_000)
        #expect(hud["event"] == "presented")
        #expect(hud["toast"]?["progress"] == "indeterminate")
        #expect(hud["toast"]?["dismissible"] == false)
        // A failure goes ahead of every HUD (issue #42): the HUD ends, and
        // the failure shows at the top until dismissed.
        let ended = try watcher.readLine(timeout: 5_000)
        #expect(ended["event"] == "dismissed" && ended["toast"]?["id"] == hud["toast"]?["id"], "\(ended)")
        let result = try watcher.readLine(timeout: 5_000)
        #expect(result["event"] == "presented")
        #expect(result["toast"]?["role"] == "failure" && result["toast"]?["alignment"] == "top")
        #expect(result["toast"]?["message"]?.stringValue?.contains("status 3") == true)
        #expect(result["toast"]?["duration"] == "indefinite" && result["toast"]?["dismissible"] == true)

        // A success replaces its HUD in place: an update, not a repeat.
        #expect(try daemon.toastctl("run", "--", "true").status == 0)
        let second = try watcher.readLine(timeout: 5_000)
        #expect(second["event"] == "presented" && second["toast"]?["alignment"] == "center", "the center was free: \(second)")
        let success = try watcher.readLine(timeout: 5_000)
        #expect(success["event"] == "updated" && success["toast"]?["id"] == second["toast"]?["id"])
        #expect(success["toast"]?["role"] == "success" && success["toast"]?["repeat"] == 1)
    }

    /// If the HUD is gone when the command ends (here the command itself
    /// clears it), the result is added anew rather than lost.
    @Test func runAddsTheResultWhenItsHudIsGone() throws {
        let daemon = try DaemonFixture()
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        #expect(try daemon.toastctl("run", "--", toastctl, "clear", "--force").status == 0)
        let list = try JSONValue.parse(try daemon.toastctl("list", "--json").stdout)
        guard case .array(let toasts)? = list["toasts"] else {
            Issue.record("no toasts in \(list)")
            return
        }
        #expect(toasts.count == 1)
        #expect(toasts.first?["role"] == "success")
        #expect(toasts.first?["title"] == "Done")
    }

    @Test func twoClientsAddingTheSameToastShareOne() throws {
        let daemon = try DaemonFixture()
        #expect(try daemon.toastctl("add", "Disk almost full", "--reuse-id", "disk").stdout == "1")
        #expect(try daemon.toastctl("add", "Disk full", "--reuse-id", "disk").stdout == "1")
        let list = try JSONValue.parse(try daemon.toastctl("list", "--json").stdout)
        #expect(list["toasts"]?.arrayCount == 1)
        guard case .array(let toasts)? = list["toasts"] else { return }
        // A reuse id's new text is an update in place, not a repeat (×N
        // counts identical toasts); the same text again counts.
        #expect(toasts[0]["repeat"] == 1)
        #expect(toasts[0]["message"] == "Disk full")
        #expect(try daemon.toastctl("add", "Disk full", "--reuse-id", "disk").stdout == "1")
        guard case .array(let after)? = try JSONValue.parse(try daemon.toastctl("list", "--json").stdout)["toasts"] else { return }
        #expect(after.first?["repeat"] == 2)
    }

    @Test func fiftyConcurrentClientsEachToastAppearsExactlyOnce() throws {
        let daemon = try DaemonFixture(arguments: ["--max-visible-top", "100"])
        let watcher = try daemon.subscribe()
        let ids = Locked([Int64?](repeating: nil, count: 50))
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            guard let connection = try? daemon.connect(),
                let reply = try? connection.request(["op": "add", "toast": ["message": .string("client \(index)"), "duration": 60]], timeout: 10_000)
            else { return }
            ids.withLock { $0[index] = reply["result"]?["id"]?.intValue }
        }
        let acknowledged = ids.withLock { $0.compactMap { $0 } }
        #expect(acknowledged.count == 50)
        var seen: [Int64: Int] = [:]
        for _ in 0..<50 {
            let event = try watcher.readLine(timeout: 5_000)
            if event["event"] == "presented", let id = event["toast"]?["id"]?.intValue { seen[id, default: 0] += 1 }
        }
        #expect(Set(seen.keys) == Set(acknowledged))
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    /// A clear of thousands of toasts is one burst of events, larger than a
    /// subscriber's buffer. A subscriber that keeps reading must get all of
    /// it, not `lagged`: toastd flushes as it goes (found by the soak).
    @Test func aBurstLargerThanTheBufferReachesAReaderThatKeepsUp() throws {
        // 2,000 ends of ~550 bytes: twice the buffer.
        let daemon = try DaemonFixture(arguments: ["--subscriber-buffer-bytes", "524288"])
        let writer = try daemon.connect()
        let count = 2_000
        let text = String(repeating: "x", count: 200)
        for batch in stride(from: 0, to: count, by: 100) {
            for index in batch..<batch + 100 {
                try writer.send(["op": "add", "toast": ["message": .string("\(index) \(text)"), "duration": "indefinite"]])
            }
            for _ in 0..<100 { #expect(try writer.readReply(timeout: 20_000)["ok"] == true) }
        }
        let subscriber = try daemon.subscribe()
        // Keys are sorted, so an end starts with its event name; `lagged` has `dropped` first.
        let ended = Array(#"{"event":"cancelled""#.utf8)
        let dismissed = Array(#"{"event":"dismissed""#.utf8)
        let lagged = Array(#"{"dropped":"#.utf8)
        let outcome = Locked((ends: 0, lagged: false))
        let reader = DispatchSemaphore(value: 0)
        let connection = subscriber
        Thread {
            var ends = 0
            var wasLagged = false
            while ends < count, !wasLagged, let line = try? connection.readRawLine(timeout: 20_000) {
                if line.starts(with: ended) || line.starts(with: dismissed) { ends += 1 }
                if line.starts(with: lagged) { wasLagged = true }
            }
            outcome.withLock { $0 = (ends, wasLagged) }
            reader.signal()
        }.start()
        #expect(try writer.request(["op": "clear", "force": true], timeout: 20_000)["result"]?["cleared"] == .int(Int64(count)))
        reader.wait()
        let (ends, wasLagged) = outcome.withLock { $0 }
        #expect(!wasLagged)
        #expect(ends == count)
    }

    @Test func aStalledSubscriberNeitherBlocksOthersNorGrowsMemory() throws {
        // 3,000 events of ~500 bytes overflow 512 KiB thrice over; the room is
        // for the healthy readers, which run slowly under ThreadSanitizer.
        // The backlog holds 1,000 events, so the stalled one cannot catch up from it.
        let daemon = try DaemonFixture(arguments: [
            "--subscriber-buffer-bytes", "524288", "--subscriber-lag-timeout", "120", "--resume-events", "1000",
        ])
        let stalled = try daemon.connect()
        try stalled.send(["op": "subscribe"])  // and does not read until the flood is over
        let healthy = try (0..<4).map { _ in try daemon.subscribe() }
        let count = 3_000
        let received = Locked([Int](repeating: 0, count: healthy.count))
        let readers = DispatchGroup()
        // Each add is announced as presented or queued.
        let presented = Array(#""event":"presented""#.utf8)
        let queued = Array(#""event":"queued""#.utf8)
        for (index, connection) in healthy.enumerated() {
            let subscriber = connection
            // A thread each: GCD's pool has as many threads as cores, and a blocked reader would starve the rest.
            readers.enter()
            Thread {
                // Raw lines and a byte search: a debug-build JSON parser would be the slow reader here.
                var seen = 0
                while seen < count, let line = try? subscriber.readRawLine(timeout: 20_000) {
                    if line.contains(presented) || line.contains(queued) {
                        seen += 1
                        received.withLock { $0[index] = seen }
                    }
                }
                readers.leave()
            }.start()
        }
        let writer = try daemon.connect()
        let text = String(repeating: "x", count: 300)
        // Batches of 50 pipelined adds. The writer goes on once the healthy
        // readers have read a batch, so they never hold more than one batch
        // however slowly they run (under ThreadSanitizer, very); the stalled
        // one never reads, and the writer is never held up by it.
        for batch in stride(from: 0, to: count, by: 50) {
            for index in batch..<batch + 50 {
                try writer.send(["op": "add", "toast": ["message": .string("\(index) \(text)"), "duration": 60]])
            }
            for _ in 0..<50 { #expect(try writer.readReply(timeout: 20_000)["ok"] == true) }
            for _ in 0..<2_000 where received.withLock({ $0.min()! }) < batch + 50 { usleep(10_000) }
        }
        readers.wait()
        let counts = received.withLock { $0 }
        #expect(counts.allSatisfy { $0 == count }, "\(counts)")
        if !DaemonFixture.underAddressSanitizer {
            #expect(daemon.residentKiB < 100_000, "toastd RSS \(daemon.residentKiB) KiB")
        }

        // The stalled subscriber lost events and is told so, with a fresh snapshot to resync from.
        // The snapshot holds all 3,000 toasts: a toastd built with ThreadSanitizer
        // took over 5 s to encode it, so a line may take up to 30.
        var events: [String] = []
        while events.suffix(2) != ["lagged", "snapshot"], events.count < count {
            let line = try stalled.readLine(timeout: 30_000)
            if let event = line["event"]?.stringValue { events.append(event) }
        }
        #expect(events.filter { $0 == "presented" || $0 == "queued" }.count < count)
        #expect(events.suffix(2) == ["lagged", "snapshot"])
    }

    /// A subscriber whose buffer fills is given what it missed from the
    /// backlog once it reads again: every event, in order, and no `lagged`.
    @Test func aSubscriberThatFallsBehindWithinTheBacklogCatchesUpWithEveryEvent() throws {
        let daemon = try DaemonFixture(arguments: ["--subscriber-buffer-bytes", "65536"])
        let subscriber = try daemon.subscribe()  // and does not read until the adds are done
        let writer = try daemon.connect()
        let count = 1_500
        let text = String(repeating: "z", count: 400)
        for batch in stride(from: 0, to: count, by: 100) {
            for index in batch..<batch + 100 {
                try writer.send(["op": "add", "toast": ["message": .string("\(index) \(text)"), "duration": "indefinite"]])
            }
            for _ in 0..<100 { #expect(try writer.readReply(timeout: 20_000)["ok"] == true) }
        }
        var sequences: [Int64] = []
        var kinds: Set<String> = []
        while sequences.count < count {
            let line = try subscriber.readLine(timeout: 10_000)
            guard let event = line["event"]?.stringValue else { continue }
            kinds.insert(event)
            if event == "presented" || event == "queued", case .int(let seq)? = line["seq"] { sequences.append(seq) }
        }
        #expect(!kinds.contains("lagged"))
        #expect(sequences == Array(1...Int64(count)))
    }

    @Test func aSubscriberThatNeverReadsIsDisconnectedAfterTheLagTimeout() throws {
        let daemon = try DaemonFixture(arguments: ["--subscriber-buffer-bytes", "4096", "--subscriber-lag-timeout", "0.5"])
        let stalled = try daemon.connect()
        try stalled.send(["op": "subscribe"])
        let writer = try daemon.connect()
        let text = String(repeating: "y", count: 1_000)
        for index in 0..<1_000 {
            try writer.send(["op": "add", "toast": ["message": .string("\(index) \(text)"), "reuseId": .string("r\(index % 50)")]])
        }
        for _ in 0..<1_000 { _ = try writer.readReply(timeout: 10_000) }
        var subscribers: Int64? = 1
        for _ in 0..<100 where subscribers != 0 {
            usleep(50_000)
            subscribers = try writer.request(["op": "status"], timeout: 5_000)["result"]?["subscribers"]?.intValue
        }
        #expect(subscribers == 0)
        _ = stalled
    }

    @Test func malformedOversizedAndHostileLinesGetErrorsAndTheConnectionStaysUsable() throws {
        let daemon = try DaemonFixture(arguments: ["--max-line-bytes", "1024"])
        let connection = try daemon.connect()
        func code(_ bytes: [UInt8]) throws -> String? {
            try connection.sendLine(bytes)
            return try connection.readReply(timeout: 5_000)["error"]?["code"]?.stringValue
        }
        #expect(try code(Array("{not json".utf8)) == "invalid_json")
        #expect(try code([0x7B, 0xFF, 0xFE, 0x7D]) == "invalid_utf8")
        #expect(try code(Array(#"{"op":"explode"}"#.utf8)) == "unknown_op")
        #expect(try code(Array(#"{"op":"add","toast":{"message":"x","duration":"NaN"}}"#.utf8)) == "invalid_field")
        #expect(try code(Array(repeating: UInt8(ascii: "a"), count: 5_000)) == "line_too_long")
        let ok = try connection.request(["op": "add", "toast": ["message": "still here \u{1B}[31m"]], timeout: 5_000)
        #expect(ok["ok"] == true)
    }

    @Test func socatSpeaksTheProtocolFromTheSpec() throws {
        let daemon = try DaemonFixture()
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        // -t 30: after its input ends, socat waits at most half a second
        // for the reply by default, which a toastd built with
        // ThreadSanitizer can take longer than; toastd closes the
        // connection once it has answered, and socat exits then.
        process.arguments = ["socat", "-t", "30", "-", "UNIX-CONNECT:\(daemon.socket)"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(#"{"op":"add","toast":{"message":"hello from socat"}}"#.utf8 + [10]))
        try input.fileHandleForWriting.close()
        let reply = try JSONValue.parse(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(reply["ok"] == true)
        #expect(reply["result"]?["toast"]?["source"]?.stringValue?.hasPrefix("socat[") == true)
    }

    @Test func aLiveDaemonIsDetectedAndAStaleSocketReplaced() throws {
        let daemon = try DaemonFixture()
        let second = Process()
        second.executableURL = DaemonFixture.binaryDirectory.appending(path: "toastd")
        second.arguments = ["--socket", daemon.socket, "--state-dir", daemon.directory.appending(path: "second").path]
        second.standardError = Pipe()
        try second.run()
        second.waitUntilExit()
        #expect(second.terminationStatus == 1)

        daemon.process.interrupt()  // SIGINT: graceful
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
        // Leave a stale socket file behind, as a crashed daemon would.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(daemon.socket.utf8)) }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(fd)
        #expect(FileManager.default.fileExists(atPath: daemon.socket))
        let restarted = try DaemonFixture.restart(on: daemon)
        #expect(try DaemonFixture.toastctl(["add", "back"], socket: daemon.socket).status == 0)
        restarted.terminate()
        restarted.waitUntilExit()
    }

    /// Past the spare connections toastd answers a connection with one
    /// refusal and closes it, maybe before the client has written: toastctl
    /// (its front, then the full toastctl) says why every time, and is never
    /// killed by the SIGPIPE of writing to the closed connection.
    @Test func pastTheSpareConnectionsToastctlIsToldWhyEveryTime() throws {
        let daemon = try DaemonFixture(arguments: ["--max-connections", "1"])
        var open: [ToastConnection] = []
        // One regular connection and the 8 spare ones (README, "Limits"; `Admission.spares`).
        for _ in 0..<200 where open.count < 9 {
            let candidate = try daemon.connect()
            if (try? candidate.request(["op": "status"], timeout: 5_000))?["ok"] == true { open.append(candidate) } else { usleep(20_000) }
        }
        #expect(open.count == 9)
        for attempt in 0..<20 {
            let refused = try DaemonFixture.toastctl(["add", "one too many \(attempt)"], socket: daemon.socket)
            #expect(refused.status == 1, "\(attempt): \(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains("too_many_connections"), "\(attempt): \(refused.stderr)")
        }
    }

    @Test func connectionsBeyondTheLimitAreRefusedWithATypedError() throws {
        let daemon = try DaemonFixture(arguments: ["--max-connections", "3"])
        // Until toastd has seen the fixture's readiness probe close, it still
        // counts it (under ThreadSanitizer, for a while): wait for a
        // connection that toastd counts as the only one.
        var first: ToastConnection?
        for _ in 0..<200 where first == nil {
            let candidate = try daemon.connect()
            if (try? candidate.request(["op": "status"], timeout: 5_000))?["result"]?["connections"] == 1 {
                first = candidate
            } else {
                usleep(20_000)
            }
        }
        var open = try [#require(first)] + (0..<2).map { _ in try daemon.connect() }
        for connection in open { #expect(try connection.request(["op": "status"], timeout: 5_000)["ok"] == true) }
        let refused = try DaemonFixture.toastctl(["add", "one too many"], socket: daemon.socket)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("too_many_connections"), "\(refused.stderr)")
        open.removeLast()
        usleep(100_000)
        #expect(try DaemonFixture.toastctl(["add", "room again"], socket: daemon.socket).status == 0)
    }

    @Test(arguments: [["--max-visible-top", "0"], ["--max-visible-center", "101"], ["--max-connections", "0"], ["--subscriber-lag-timeout", "0"]])
    func outOfRangeFlagsAreUsageErrors(flags: [String]) throws {
        let toastd = DaemonFixture.binaryDirectory.appending(path: "toastd").path
        let outcome = try DaemonFixture.run(toastd, ["--socket", "/nonexistent/toastd.sock"] + flags)
        #expect(outcome.status == 2, "\(outcome.stderr)")  // usage errors are 2 in every tool
        #expect(outcome.stderr.contains(flags[0]), "\(outcome.stderr)")
    }

    /// Runs as root (as CI does) so that it can act as a second user, `nobody`.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func peerCredentialsRefuseOtherUsersAndOptionallyRoot() throws {
        // The socket's own permissions already keep others out; loosen them to reach the SO_PEERCRED check.
        let daemon = try DaemonFixture()
        let toastctl = daemon.directory.appending(path: "toastctl").path
        try DaemonFixture.copyExecutable("toastctl", to: toastctl)
        try DaemonFixture.copyExecutable("toastctl-full", to: daemon.directory.appending(path: "toastctl-full").path)
        chmod(daemon.directory.path, 0o755)
        chmod(daemon.socket, 0o666)
        let asNobody = try DaemonFixture.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", toastctl, "add", "--socket", daemon.socket, "hi"]
        )
        #expect(asNobody.status == 1)
        #expect(asNobody.stderr.contains("forbidden"), "\(asNobody.stderr)")

        // A daemon run by nobody serves root unless --deny-root. (toastctl,
        // as root, would itself refuse a server run by nobody: see
        // SocketSecurityTests. A raw socket shows what the daemon does.)
        for (flags, allowed) in [([String](), true), (["--deny-root"], false)] {
            let directory = daemon.directory.appending(path: "nobody-\(allowed)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            chown(directory.path, 65534, 65534)
            chmod(directory.path, 0o700)
            let socket = directory.appending(path: "toastd.sock").path
            let toastd = daemon.directory.appending(path: "toastd-\(allowed)").path
            try DaemonFixture.copyExecutable("toastd", to: toastd)
            let process = Process()
            process.executableURL = URL(filePath: "/usr/bin/setpriv")
            // --ephemeral: nobody has no state directory of its own to write.
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", toastd, "--socket", socket, "--log-level", "error", "--ephemeral"] + flags
            try process.run()
            defer { process.terminate(); process.waitUntilExit() }
            SocketFileProbe.waitUntilAccepting(socket, while: { process.isRunning })
            let reply = try RawSocket.exchange(socket, #"{"op":"status"}"#)
            #expect(reply.contains(allowed ? #""ok":true"# : #""code":"forbidden""#), "\(flags): \(reply)")
        }
    }

    /// A subscriber that never reads, with more written to it than its
    /// socket takes but less than its bound (so it never falls behind), cannot
    /// hold the daemon's exit: it is closed after the shutdown's grace.
    @Test func sigtermExitsPromptlyWithASubscriberThatNeverReads() throws {
        let daemon = try DaemonFixture()
        let stalled = try daemon.connect()
        try stalled.send(["op": "subscribe"])
        let writer = try daemon.connect()
        let text = String(repeating: "s", count: 1_000)
        // 600 events of over 1 KB: more than the socket takes, under the 1 MiB bound.
        for batch in stride(from: 0, to: 600, by: 100) {
            for index in batch..<batch + 100 {
                try writer.send(["op": "add", "toast": ["message": .string("\(index) \(text)"), "duration": "indefinite"]])
            }
            for _ in 0..<100 { #expect(try writer.readReply(timeout: 10_000)["ok"] == true) }
        }
        daemon.process.terminate()
        for _ in 0..<1_000 where daemon.process.isRunning { usleep(10_000) }
        let exited = !daemon.process.isRunning
        if !exited { kill(daemon.process.processIdentifier, SIGKILL) }
        #expect(exited, "toastd still running 10 s after SIGTERM")
        daemon.process.waitUntilExit()
        #expect(!exited || daemon.process.terminationStatus == 0)
        _ = stalled
    }

    @Test func sigtermTellsSubscribersRemovesTheSocketAndExitsZero() throws {
        let daemon = try DaemonFixture()
        let watcher = try daemon.subscribe()
        var mode = stat()
        #expect(stat(daemon.socket, &mode) == 0)
        #expect(mode.st_mode & 0o777 == 0o600)
        daemon.process.terminate()
        let notice = try watcher.readLine(timeout: 5_000)
        #expect(notice["event"] == "shutdown")
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
    }

    /// A SIGTERM sent at any moment of start-up stops toastd: before, a
    /// signal ignored until a Dispatch source took over could be lost, and
    /// a toastd stopped just after it answered its first client ran on.
    /// Sent once the socket accepts, toastd stops cleanly (exit 0); sent
    /// earlier, it stops cleanly or, before main runs, by the signal itself.
    @Test func aSigtermDuringStartUpIsNeverLost() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-sigterm-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (round, delay) in [0, 1_000, 3_000, 6_000, 10_000, 20_000, nil].enumerated() {
            let socket = directory.appending(path: "s\(round).sock").path
            let process = Process()
            process.executableURL = DaemonFixture.binaryDirectory.appending(path: "toastd")
            process.arguments = ["--socket", socket, "--log-level", "warning", "--state-dir", directory.appending(path: "state\(round)").path]
            process.environment = ["XDG_CONFIG_HOME": directory.path]
            try process.run()
            if let delay {
                usleep(useconds_t(delay))
            } else {
                SocketFileProbe.waitUntilAccepting(socket)
            }
            kill(process.processIdentifier, SIGTERM)
            for _ in 0..<500 where process.isRunning { usleep(10_000) }
            #expect(!process.isRunning, "toastd still runs 5 s after a SIGTERM \(delay.map { "\($0) µs after exec" } ?? "once it accepted")")
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                continue
            }
            process.waitUntilExit()
            let clean = process.terminationReason == .exit && process.terminationStatus == 0
            let bySignal = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM
            #expect(delay == nil ? clean : clean || bySignal, "round \(round): \(process.terminationReason) \(process.terminationStatus)")
        }
    }
}

extension DaemonFixture {
    /// Starts toastd again on the fixture's socket: on its state (the same
    /// toasts, the same instance), or with `freshState` as a new daemon.
    static func restart(on fixture: DaemonFixture, freshState: Bool = false) throws -> Process {
        let process = Process()
        process.executableURL = binaryDirectory.appending(path: "toastd")
        let state = freshState ? fixture.directory.appending(path: "state-\(UUID().uuidString.prefix(6))").path : fixture.stateDirectory
        process.arguments = ["--socket", fixture.socket, "--log-level", "warning", "--state-dir", state]
        try process.run()
        SocketFileProbe.waitUntilAccepting(fixture.socket)
        return process
    }
}

extension JSONValue {
    var arrayCount: Int? {
        if case .array(let elements) = self { return elements.count }
        return nil
    }
}
