// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// The hijack an outside tester reproduced (issue #11): another user
/// prepares toastd's fallback directory, or runs a server on the socket.
/// The daemon must refuse such a directory, and every client must refuse
/// a server that runs as neither its own uid nor root.
///
/// These run as root (as CI does) so that they can act as other users with
/// setpriv; the uids are picked per run so that parallel runs do not meet.
@Suite("Socket directory and server identity", .serialized)
struct SocketSecurityTests {
    static let canSwitchUsers = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    static let user = UInt32(40_000 + getpid() % 20_000)

    /// A directory any uid may read, holding copies of the binaries.
    static func binaries() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-sec-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o755)
        for name in ["toastd", "toastctl", "toastctl-full", "toast-tail"] {
            try DaemonFixture.copyExecutable(name, to: directory.appending(path: name).path)
        }
        return directory
    }

    static func asUser(_ uid: UInt32, _ command: [String]) -> [String] {
        ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/env", "-u", "XDG_RUNTIME_DIR", "-u", "TOASTD_SOCKET"]
            + command
    }

    /// toastd as `user` with no XDG_RUNTIME_DIR: it falls back to /tmp/toastd-UID.
    /// (--ephemeral here and below: these uids have no home to keep state in,
    /// and the socket is what is under test.)
    static func startFallbackDaemon(_ binaries: URL, timeout: Int = 10) throws -> DaemonFixture.Outcome {
        try DaemonFixture.run(
            "/usr/bin/timeout",
            ["\(timeout)", "/usr/bin/setpriv"] + asUser(user, [binaries.appending(path: "toastd").path, "--log-level", "error", "--ephemeral"])
        )
    }

    @Test(.enabled(if: canSwitchUsers))
    func theDaemonRefusesAFallbackDirectoryAnotherUserPrepared() throws {
        let binaries = try Self.binaries()
        defer { try? FileManager.default.removeItem(at: binaries) }
        let fallback = SocketLocation.fallbackDirectory(uid: Self.user)
        let target = fallback + "-target"
        defer {
            unlink(fallback)
            try? FileManager.default.removeItem(atPath: fallback)
            try? FileManager.default.removeItem(atPath: target)
        }

        // 1. Created beforehand by nobody, mode 1777 (the reported attack).
        try? FileManager.default.removeItem(atPath: fallback)
        mkdir(fallback, 0o777)
        chmod(fallback, 0o1777)
        chown(fallback, 65534, 65534)
        var outcome = try Self.startFallbackDaemon(binaries)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("belongs to uid 65534"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(fallback), "\(outcome.stderr)")

        // 2. A symlink to a directory that looks right.
        rmdir(fallback)
        mkdir(target, 0o700)
        chown(target, Self.user, Self.user)
        symlink(target, fallback)
        outcome = try Self.startFallbackDaemon(binaries)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("symbolic link"), "\(outcome.stderr)")

        // 3. Our own, but open to others.
        unlink(fallback)
        mkdir(fallback, 0o755)
        chmod(fallback, 0o755)
        chown(fallback, Self.user, Self.user)
        outcome = try Self.startFallbackDaemon(binaries)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("chmod 700"), "\(outcome.stderr)")

        // 4. Absent: toastd creates it, 0700 and its own, and serves there.
        rmdir(fallback)
        outcome = try Self.startFallbackDaemon(binaries, timeout: 2)
        #expect(outcome.status == 124, "toastd should have served until timeout stopped it: \(outcome.stderr)")
        var info = stat()
        #expect(lstat(fallback, &info) == 0)
        #expect(info.st_uid == Self.user)
        #expect(info.st_mode & 0o7777 == 0o700)
    }

    /// A server that runs as another user, on a socket root's clients are
    /// pointed at: toastctl, toast-tail and watch refuse it, exit 3, and say
    /// which socket and which uid.
    @Test(.enabled(if: canSwitchUsers))
    func clientsRefuseAServerRunByAnotherUser() throws {
        let binaries = try Self.binaries()
        defer { try? FileManager.default.removeItem(at: binaries) }
        let impostor = Self.user + 1
        let directory = binaries.appending(path: "run")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        chown(directory.path, impostor, impostor)
        chmod(directory.path, 0o700)
        let socket = directory.appending(path: "toastd.sock").path
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/setpriv")
        process.arguments = Self.asUser(impostor, [binaries.appending(path: "toastd").path, "--socket", socket, "--log-level", "error", "--ephemeral"])
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        SocketFileProbe.waitUntilAccepting(socket, while: { process.isRunning })
        // It really is a working toastd: a raw client is answered.
        #expect(try RawSocket.exchange(socket, #"{"op":"status"}"#).contains(#""ok":true"#))

        let environment = ["TOASTD_SOCKET": socket]
        for (tool, arguments) in [
            ("toastctl", ["add", "secret text"]), ("toastctl", ["watch"]), ("toast-tail", ["--json"]), ("toast-tail", ["--once"]),
        ] {
            let outcome = try DaemonFixture.run(
                "/usr/bin/timeout", ["10", binaries.appending(path: tool).path] + arguments, environment: environment
            )
            #expect(outcome.status == 3, "\(tool) \(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(socket), "\(tool) \(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("uid \(impostor)"), "\(tool) \(arguments): \(outcome.stderr)")
        }
        // `toastctl run` still runs the command (its status is the
        // command's), and says once on stderr why it shows no HUD.
        let marker = binaries.appending(path: "ran").path
        let run = try DaemonFixture.run(
            "/usr/bin/timeout", ["10", binaries.appending(path: "toastctl").path, "run", "--", "/bin/sh", "-c", "touch \(marker); exit 3"],
            environment: environment
        )
        #expect(run.status == 3, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker), "the command did not run")
        #expect(run.stderr.components(separatedBy: "no HUD").count == 2 && run.stderr.contains("uid \(impostor)"), "\(run.stderr)")
        // The library refuses before it sends a byte.
        #expect(throws: ToastConnection.Failure.self) { try ToastConnection(path: socket) }
    }

    @Test func onlyTheClientsOwnUidOrRootIsTrusted() {
        #expect(ToastConnection.isTrusted(server: 1000, client: 1000))
        #expect(ToastConnection.isTrusted(server: 0, client: 1000))
        #expect(!ToastConnection.isTrusted(server: 65534, client: 1000))
        #expect(!ToastConnection.isTrusted(server: 1000, client: 0))
    }
}

/// A client with no checks of its own: connect, send one line, read one.
enum RawSocket {
    static func exchange(_ path: String, _ line: String) throws -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(UInt8(ascii: "\n")) {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            reply += buffer[..<count]
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
