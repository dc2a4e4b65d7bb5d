// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// A viewer that loses its connection while toastd keeps running gets the
/// events it missed when it comes back, not a new snapshot (issue #11,
/// resumable subscriptions). The connection runs through a socat proxy that
/// the test stops and starts again, so the daemon and its instance stay.
@Suite("Resuming subscriptions, end to end", .serialized)
struct ResumeEndToEndTests {
    final class Proxy {
        let path: String
        let target: String
        var pid: pid_t?

        init(path: String, target: String) throws {
            self.path = path
            self.target = target
            try start()
        }

        func start() throws {
            pid = try DaemonFixture.spawn("/usr/bin/socat", ["UNIX-LISTEN:\(path),fork,mode=600", "UNIX-CONNECT:\(target)"])
            for _ in 0..<300 where !FileManager.default.fileExists(atPath: path) { usleep(10_000) }
        }

        /// Stops the proxy and every connection it carries.
        func stop() {
            guard let pid else { return }
            kill(pid, SIGKILL)
            DaemonFixture.wait(pid)
            // socat's forked children carry the live connections: end them too.
            _ = try? DaemonFixture.run("/usr/bin/pkill", ["-KILL", "-f", "UNIX-LISTEN:\(path)"])
            unlink(path)
            self.pid = nil
        }

        deinit { stop() }
    }

    /// Lines a background process has written to its output file so far.
    static func lines(_ file: URL) -> [JSONValue] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    static func waitFor(_ file: URL, _ condition: ([JSONValue]) -> Bool) -> Bool {
        for _ in 0..<1_000 {
            if condition(lines(file)) { return true }
            usleep(10_000)
        }
        return false
    }

    static func presented(_ message: String) -> ([JSONValue]) -> Bool {
        { lines in lines.contains { $0["event"] == "presented" && $0["toast"]?["message"] == .string(message) } }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/socat")), arguments: [
        ["toastctl", "watch", "--json"], ["toast-tail", "--json"],
    ])
    func aViewerThatReconnectsGetsWhatItMissedAndNoSecondSnapshot(command: [String]) throws {
        let daemon = try DaemonFixture()
        let proxy = try Proxy(path: daemon.directory.appending(path: "proxy.sock").path, target: daemon.socket)
        let output = daemon.directory.appending(path: "viewer.out")
        let viewer = try DaemonFixture.spawn(
            DaemonFixture.binaryDirectory.appending(path: command[0]).path, Array(command.dropFirst()),
            environment: ["TOASTD_SOCKET": proxy.path], stdout: output.path
        )
        defer {
            kill(viewer, SIGKILL)
            DaemonFixture.wait(viewer)
        }
        #expect(Self.waitFor(output) { $0.contains { $0["event"] == "snapshot" } })
        #expect(try daemon.toastctl("add", "one", "--duration", "indefinite").status == 0)
        #expect(Self.waitFor(output, Self.presented("one")))

        proxy.stop()
        #expect(try daemon.toastctl("add", "two", "--duration", "indefinite").status == 0)
        #expect(try daemon.toastctl("add", "three", "--duration", "indefinite").status == 0)
        usleep(300_000)
        try proxy.start()
        #expect(Self.waitFor(output, Self.presented("three")), "\(Self.lines(output).map(\.serialized))")

        let events = Self.lines(output).filter { $0["event"] != nil }
        #expect(events.count { $0["event"] == "snapshot" } == 1, "\(events.map(\.serialized))")
        let seqs = events.filter { $0["event"] != "snapshot" }.compactMap { $0["seq"]?.intValue }
        #expect(seqs == Array(1...3), "each event exactly once, in order: \(seqs)")
        #expect(Self.presented("two")(events))
    }

    @Test func aNewDaemonMeansAResyncFromItsSnapshot() throws {
        var position = StreamPosition()
        position.note(try WireDecoder.decodeServerLine(["ok": true, "result": ["subscribed": true, "instance": "a"]]))
        let record = ToastRecord(id: 1, toast: Toast(message: "m"), state: .shown, repeatCount: 1, createdAt: 1, presentedAt: 1)
        position.note(.event(ToastEvent(seq: 7, time: 1, kind: .presented(record))))
        #expect(position.subscribeRequest(EventFilter(scene: "work")) == [
            "op": "subscribe", "scene": "work", "since": 7, "instance": "a",
        ])
        position.note(try WireDecoder.decodeServerLine(["event": "snapshot", "seq": 2, "sequence": 2, "instance": "b", "time": 1, "stacks": [], "toasts": []]))
        #expect(position.instance == "b")
        #expect(position.sequence == 2)
        #expect(StreamPosition.resumed(try WireDecoder.decodeServerLine(["ok": true, "result": ["resync": false]])))
        #expect(!StreamPosition.resumed(try WireDecoder.decodeServerLine(["ok": true, "result": ["resync": true]])))
        #expect(StreamPosition().subscribeRequest(EventFilter()) == ["op": "subscribe"])
    }
}
