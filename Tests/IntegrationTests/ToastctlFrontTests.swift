// SPDX-License-Identifier: Apache-2.0
import Foundation
import PropertyBased
import Testing
import ToastKit
import ToastSystem

/// toastctl's front (Sources/toastctl): the plain form of `add` sent by a
/// 35 KB program, everything else by the full toastctl it runs. Whatever
/// the command line, what toastd acts on and what the user sees must be
/// what the full toastctl alone gives.
@Suite("toastctl's front")
struct ToastctlFrontTests {
    /// As /proc/PID/exe names them (the build directory's symlinks resolved).
    static var front: String { DaemonFixture.binaryDirectory.appending(path: "toastctl").resolvingSymlinksInPath().path }
    static var full: String { DaemonFixture.binaryDirectory.appending(path: "toastctl-full").resolvingSymlinksInPath().path }

    /// What one run of a program did against a `RecordingServer`.
    struct Run: Equatable, CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The request toastd would have acted on (the last one its decoder took), if any.
        var accepted: RequestEnvelope?
        /// Which program sent each line.
        var senders: [String]

        var description: String { "status \(status), stdout \(stdout.debugDescription), stderr \(stderr.debugDescription), \(accepted.map { "\($0)" } ?? "nothing accepted"), sent by \(senders)" }
    }

    static func run(_ program: String, _ arguments: [String], server: RecordingServer) throws -> Run {
        server.reset()
        let outcome = try DaemonFixture.run(program, arguments, environment: ["TOASTD_SOCKET": server.path])
        let received = server.received
        let accepted = received.compactMap { try? WireDecoder.decode(line: Array($0.line.utf8)).get() }.last
        return Run(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr, accepted: accepted, senders: received.map(\.sender))
    }

    /// The front and the full toastctl on the same command line: the same
    /// outcome and the same request accepted.
    static func compare(_ arguments: [String], server: RecordingServer) throws -> (front: Run, full: Run) {
        let front = try run(Self.front, arguments, server: server)
        let full = try run(Self.full, arguments, server: server)
        #expect(front.status == full.status, "\(arguments): \(front) against \(full)")
        #expect(front.stdout == full.stdout, "\(arguments): \(front) against \(full)")
        #expect(front.stderr == full.stderr, "\(arguments): \(front) against \(full)")
        #expect(front.accepted == full.accepted, "\(arguments): \(front) against \(full)")
        return (front, full)
    }

    @Test(arguments: [
        ["add", "Build finished"],
        ["add", "Build finished", "--role", "success"],
        ["add", "--role=failure", "--title", "CI", "x"],
        ["add", "x", "--duration", "2.5", "--alignment", "center", "--progress", "0.4"],
        ["add", "x", "--duration", "5s", "--progress=indeterminate", "--not-dismissible", "--close-button"],
        ["add", "x", "--duration=indefinite", "--reuse-id", "build", "--scene", "ide", "--icon", "🍞", "--source", "make", "--cancellation", "always"],
        ["add", "quote \" backslash \\ tab \t newline \n bell \u{7} é 🍞 \u{2028}", "--title", "{\"op\":\"clear\"}"],
    ])
    func sendsThePlainFormItself(arguments: [String]) throws {
        let server = try RecordingServer()
        let (front, _) = try Self.compare(arguments, server: server)
        #expect(front.status == 0 && front.stdout == "41")
        // The front sent it, in one request: the full toastctl never ran.
        #expect(front.senders == [Self.front], "\(front)")
    }

    @Test(arguments: [
        ["add", "x", "--json"],
        ["add", "x", "--duration", "2m"],
        ["add", "x", "--duration", "500ms"],
        ["add", "x", "--icon", "/usr/share/icons/x.png"],
        ["add", "x", "--action", "undo:Undo"],
        ["add", "x", "--wait", "--timeout", "0.1"],
        ["add", "x", "--role", "info", "--role", "info"],
        ["add", "--help"],
        ["--version"],
        ["status"],
    ])
    func leavesTheRestToTheFullToastctl(arguments: [String]) throws {
        let server = try RecordingServer()
        let (front, _) = try Self.compare(arguments, server: server)
        #expect(!front.senders.contains(Self.front), "\(front)")
    }

    /// toastd refuses what the full toastctl refuses before sending: the
    /// front then runs it, and its message and exit status are the user's.
    @Test(arguments: [
        ["add", "x", "--role", "bogus"],
        ["add", "x", "--duration", "soon"],
        ["add", "x", "--progress", "7"],
        ["add", "", "--title", ""],
    ])
    func aRefusedAddIsTheFullToastctlsToExplain(arguments: [String]) throws {
        let server = try RecordingServer()
        let (front, full) = try Self.compare(arguments, server: server)
        #expect(front.accepted == nil && front.status != 0 && !front.stderr.isEmpty, "\(front)")
        #expect(front.senders.first == Self.front, "\(front)")
        #expect(full.senders.isEmpty, "the full toastctl refuses it before sending: \(full)")
    }

    static let words = [
        "x", "Build finished", "", "-", "--", "-x", "--title", "--title=T", "--title=", "--role", "info", "--role=success",
        "bogus", "--duration", "2.5", "0", "007", "1e3", ".5", "5s", "0.5s", "500ms", "2m", "1h", "s", "inf", "nan", "short",
        "--duration=indefinite", "--alignment", "center", "--progress", "0.25", "indeterminate", "--reuse-id", "r", "--scene",
        "--json", "--not-dismissible", "--close-button", "--close-button=1", "--action", "a:A", "--invalidation",
        "contextChanged", "--cancellation", "never", "--source", "--icon", "/tmp/i.png", "file:///i.png", "🍞", "=",
        "--=x", "a\"b\\c", "tab\tnew\nline", "\u{1}", "--wait", "--help", "-h",
    ]

    /// Random command lines from a vocabulary of options, values and
    /// mistakes: the front and the full toastctl end the same way, and
    /// whatever is accepted is the same request.
    @Test func agreesWithTheFullToastctlOnRandomLines() async throws {
        let server = try RecordingServer()
        let lines = Gen.int(in: 0..<Self.words.count).array(of: 0...6)
        await propertyCheck(count: 120, input: lines) { picks in
            _ = try? Self.compare(["add"] + picks.map { Self.words[$0] }, server: server)
        }
    }

    /// After the line is sent the add may have happened: the front never
    /// sends it twice, and says what went wrong itself.
    @Test(arguments: [
        (RecordingServer.Answer.close, "toastctl: toastd closed the connection\n"),
        (.line("not json"), "toastctl: toastd sent a malformed line: not a reply\n"),
        (.line("{\"ok\":true,\"result\":{\"id\":41}"), "toastctl: toastd sent a malformed line: not a reply\n"),
        (.line("{\"ok\":true,\"result\":{}}"), ""),
    ])
    func aReplyItCannotReadIsAnError(answer: RecordingServer.Answer, message: String) throws {
        let server = try RecordingServer(answer: answer)
        let run = try Self.run(Self.front, ["add", "x"], server: server)
        #expect(run.status == 1)
        #expect(run.stderr == message)
        #expect(run.stdout.isEmpty)
        #expect(run.senders == [Self.front])
    }

    /// Against a real toastd: the adds the front sends and the ones the full
    /// toastctl sends come from one sender, `toastctl`, so that the same text
    /// twice is one toast (PROTOCOL.md section 5.2).
    @Test func theFrontAndTheFullToastctlAreOneSender() throws {
        let daemon = try DaemonFixture()
        let first = try daemon.toastctl("add", "Backup done")
        let second = try daemon.toastctl("add", "Backup done", "--duration", "2m")
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == second.stdout, "deduped into the first toast")
        let list = try daemon.toastctl("list", "--json")
        guard case .array(let toasts)? = try JSONValue.parse(list.stdout)["toasts"] else {
            Issue.record("no toasts in \(list.stdout)")
            return
        }
        #expect(toasts.count == 1)
        #expect(toasts.first?["repeat"]?.intValue == 2)
        #expect(toasts.first?["source"]?.stringValue?.hasPrefix("toastctl[") == true, "\(toasts)")
        #expect(toasts.first?["duration"]?.doubleValue == 120)
    }

    /// Without the full toastctl beside it (or in ../libexec/toastd), the
    /// front says so and exits 127, as a shell does for a missing command.
    @Test func withoutTheFullToastctlItSaysSo() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastctl-front-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appending(path: "toastctl").path
        try DaemonFixture.copyExecutable("toastctl", to: alone)
        let run = try DaemonFixture.run(alone, ["status"])
        #expect(run.status == 127)
        #expect(run.stderr.hasPrefix("toastctl: cannot run toastctl-full (beside toastctl, or in ../libexec/toastd/): No such file"), "\(run.stderr)")
        // An install: PREFIX/bin/toastctl runs PREFIX/libexec/toastd/toastctl-full.
        let bin = directory.appending(path: "bin")
        let libexec = directory.appending(path: "libexec/toastd")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: libexec, withIntermediateDirectories: true)
        try DaemonFixture.copyExecutable("toastctl", to: bin.appending(path: "toastctl").path)
        try DaemonFixture.copyExecutable("toastctl-full", to: libexec.appending(path: "toastctl-full").path)
        let installed = try DaemonFixture.run(bin.appending(path: "toastctl").path, ["--version"])
        #expect(installed.status == 0 && !installed.stdout.isEmpty, "\(installed)")
    }
}

/// A Unix socket that records each request line and who sent it, and
/// answers as toastd would: a line toastd's decoder takes gets `id` 41, any
/// other a refusal (or, for the tests of broken servers, `answer`).
final class RecordingServer: @unchecked Sendable {
    enum Answer: Sendable {
        case asToastd
        case close
        case line(String)
    }

    struct Received {
        var line: String
        var sender: String
    }

    let path: String
    private let directory: TemporaryDirectory
    private let fd: Int32
    private let recorder = Recorder()

    /// What the serving thread shares with the tests; the thread holds this,
    /// not the server, so that dropping the server ends the thread.
    private final class Recorder: @unchecked Sendable {
        let lock = NSLock()
        var lines: [Received] = []
    }

    init(answer: Answer = .asToastd) throws {
        directory = try TemporaryDirectory(prefix: "toastctl-rec")
        path = directory.path + "/toastd.sock"
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else {
            directory.remove()
            throw POSIXError(.EADDRINUSE)
        }
        let (listening, recorder) = (fd, recorder)
        let thread = Thread { Self.serve(listening, answer: answer, recorder: recorder) }
        thread.start()
    }

    /// Wakes the thread's `accept`, which then closes the socket (closed
    /// here, its number could be another test's by the time `accept` ran).
    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        directory.remove()
    }

    var received: [Received] { recorder.lock.withLock { recorder.lines } }

    func reset() { recorder.lock.withLock { recorder.lines = [] } }

    private static func serve(_ fd: Int32, answer: Answer, recorder: Recorder) {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else {
                close(fd)
                return
            }
            // SO_PEERCRED: pid, uid, gid.
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var length = socklen_t(MemoryLayout.size(ofValue: credentials))
            getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
            let sender = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(credentials.pid)/exe")) ?? "?"
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            let text = String(decoding: line, as: UTF8.self)
            recorder.lock.withLock { recorder.lines.append(Received(line: text, sender: sender)) }
            var reply: String?
            switch answer {
            case .asToastd:
                switch WireDecoder.decode(line: line) {
                case .success: reply = #"{"ok":true,"result":{"deduped":false,"id":41}}"#
                case .failure(let failure): reply = #"{"error":{"code":"\#(failure.error.code.rawValue)","message":"refused"},"ok":false}"#
                }
            case .close: reply = nil
            case .line(let text): reply = text
            }
            if let reply {
                let bytes = Array((reply + "\n").utf8)
                _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            }
            close(client)
        }
    }
}
