// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// toastd's systemd side against real components: sd_notify datagrams read
/// from a socket the test binds, and systemd-socket-activate.
@Suite("toastd under a service manager", .serialized)
struct SystemdTests {
    /// An AF_UNIX datagram socket standing in for systemd's NOTIFY_SOCKET.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init(in directory: URL) {
            path = directory.appending(path: "notify.sock").path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }

        deinit { close(fd) }

        /// The next datagram as KEY=value pairs, or nil after `timeout` ms.
        func next(timeout: Int32 = 5_000) -> [String: String]? {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeout) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            var fields: [String: String] = [:]
            for line in String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            return fields
        }

        /// Datagrams until one has `key`.
        func waitFor(_ key: String, timeout: Int32 = 5_000) -> [String: String]? {
            while let fields = next(timeout: timeout) {
                if fields[key] != nil { return fields }
            }
            return nil
        }
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-sd-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func readyOnlyOnceTheSocketAcceptsThenStatusReloadAndStopping() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notify = NotifySocket(in: directory)
        let socketPath = directory.appending(path: "toastd.sock").path
        let process = Process()
        process.executableURL = DaemonFixture.binaryDirectory.appending(path: "toastd")
        process.arguments = ["--socket", socketPath, "--log-level", "warning", "--state-dir", directory.appending(path: "state").path]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["NOTIFY_SOCKET": notify.path, "XDG_CONFIG_HOME": directory.appending(path: "config").path]
        ) { $1 }
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }

        let ready = try #require(notify.waitFor("READY"))
        // Nothing polled the socket before READY=1: it must accept at once.
        #expect(SocketFileProbe.accepting(socketPath))
        #expect(ready["STATUS"] == "0 shown, 0 queued, 0 subscribers")

        #expect(try DaemonFixture.toastctl(["add", "counted", "--duration", "indefinite"], socket: socketPath).status == 0)
        let status = try #require(notify.waitFor("STATUS", timeout: 3_000))
        #expect(status["STATUS"] == "1 shown, 0 queued, 0 subscribers")

        kill(process.processIdentifier, SIGHUP)
        let reloading = try #require(notify.waitFor("RELOADING"))
        #expect(UInt64(reloading["MONOTONIC_USEC"] ?? "") != nil)
        #expect(notify.waitFor("READY")?["STATUS"] == "1 shown, 0 queued, 0 subscribers")
        #expect(try DaemonFixture.toastctl(["list", "--json"], socket: socketPath).stdout.contains("counted"), "a reload keeps the toasts")
        // `toastctl reload` tells systemd the same way; its reply comes once the file is read.
        #expect(try DaemonFixture.toastctl(["reload"], socket: socketPath).status == 0)
        #expect(notify.waitFor("RELOADING") != nil)
        #expect(notify.waitFor("READY") != nil)

        process.terminate()
        #expect(notify.waitFor("STOPPING")?["STOPPING"] == "1")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func theWatchdogIsPingedAtHalfItsInterval() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notify = NotifySocket(in: directory)
        let daemon = try DaemonFixture(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        _ = notify.waitFor("READY")
        var pings = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 2.0 {
            if notify.next(timeout: 500)?["WATCHDOG"] == "1" { pings += 1 }
        }
        // Every 200 ms for 2 s: about 10. A loaded machine may delay a few.
        #expect((7...13).contains(pings), "\(pings) pings in 2 s")

        // Stop the event loop: the pings stop.
        kill(daemon.process.processIdentifier, SIGSTOP)
        while notify.next(timeout: 100) != nil {}
        #expect(notify.next(timeout: 600) == nil)
        kill(daemon.process.processIdentifier, SIGCONT)
        #expect(notify.waitFor("WATCHDOG", timeout: 1_000) != nil)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func theFirstConnectionStartsToastdThroughSocketActivation() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socketPath = directory.appending(path: "toastd.sock").path
        let activator = Process()
        activator.executableURL = URL(filePath: "/usr/bin/systemd-socket-activate")
        activator.arguments = [
            "-l", socketPath, "--fdname=toastd", "-E", "SWIFT_BACKTRACE=enable=no",
            DaemonFixture.binaryDirectory.appending(path: "toastd").path, "--log-level", "warning",
            "--state-dir", directory.appending(path: "state").path,
        ]
        activator.standardError = FileHandle.nullDevice
        try activator.run()
        defer { if activator.isRunning { activator.terminate(); activator.waitUntilExit() } }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socketPath) { usleep(10_000) }
        // systemd-socket-activate waits for the first connection, then execs toastd in its place.
        func command() -> String {
            ((try? String(contentsOfFile: "/proc/\(activator.processIdentifier)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(command().hasPrefix("systemd-socket"))

        let first = try DaemonFixture.toastctl(["add", "activated"], socket: socketPath)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "1")
        let list = try DaemonFixture.toastctl(["list", "--json"], socket: socketPath)
        #expect(list.stdout.contains("activated"))
        #expect(command() == "toastd")

        // toastd stops on SIGTERM but leaves the socket file: it belongs to the service manager.
        activator.terminate()
        activator.waitUntilExit()
        #expect(activator.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: socketPath))
    }

    /// A wrapper that starts toastd without `exec`: the sockets were passed
    /// to the wrapper's process, so toastd must not serve them, and says why
    /// before it finds the socket taken.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func aWrapperThatDoesNotExecToastdIsNamed() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appending(path: "toastd.sock").path
        let log = directory.appending(path: "toastd.log").path
        let pid = try DaemonFixture.spawn(
            "/usr/bin/systemd-socket-activate",
            [
                "-l", socket, "/bin/sh", "-c", "\"$0\" \"$@\"; exit $?", DaemonFixture.binaryDirectory.appending(path: "toastd").path,
                "--socket", socket, "--log-level", "warning", "--log-target", "stderr", "--state-dir", directory.appending(path: "state").path,
            ],
            environment: ["SWIFT_BACKTRACE": "enable=no", "XDG_CONFIG_HOME": directory.path], stderr: log)
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        // A connection starts the wrapper; it is never answered, the socket being no toastd's.
        #expect(SocketFileProbe.accepting(socket))
        #expect(DaemonFixture.wait(pid) == 1)
        let output = try String(contentsOfFile: log, encoding: .utf8)
        #expect(output.contains("passed its sockets to process \(pid), not to toastd"), "\(output)")
        #expect(output.contains("exec it from the wrapper"))
        #expect(output.contains("already running"))
    }

    /// The code start-up touched is settled (the hot code mapped again with
    /// huge pages, the rest kept or let go of) at once, unless a client
    /// already waits on the inherited socket, the one whose connection
    /// started toastd: then only once it has its answer, so that its request
    /// does not fault back the pages being unmapped.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func theCodeIsSettledAfterTheClientWhoseConnectionStartedToastd() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let toastd = DaemonFixture.binaryDirectory.appending(path: "toastd").path
        let log = directory.appending(path: "toastd.log").path
        func settled(after command: [String], client: (String) throws -> Void) throws -> String {
            let socket = directory.appending(path: "toastd.sock").path
            let pid = try DaemonFixture.spawn(
                command[0], Array(command.dropFirst()) + [toastd, "--socket", socket, "--log-level", "debug", "--log-target", "stderr", "--state-dir", directory.appending(path: "state").path],
                environment: ["SWIFT_BACKTRACE": "enable=no", "XDG_CONFIG_HOME": directory.path], stderr: log)
            defer {
                kill(pid, SIGTERM)
                DaemonFixture.wait(pid)
                unlink(socket)
            }
            // The file, not a connection: a probe's connection would be the one that starts toastd.
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
            try client(socket)
            var line = ""
            for _ in 0..<500 where line.isEmpty {
                line = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                    .first { $0.contains("start-up code pages") }.map(String.init) ?? ""
                usleep(10_000)
            }
            return line
        }
        let activated = try settled(after: ["/usr/bin/systemd-socket-activate", "-l", directory.appending(path: "toastd.sock").path, "-E", "SWIFT_BACKTRACE=enable=no"]) { socket in
            let added = try DaemonFixture.toastctl(["add", "the first of the session"], socket: socket)
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(activated.contains("after the waiting client's answer"), "\(activated)")
        let plain = try settled(after: ["/usr/bin/env"]) { _ in }
        #expect(plain.contains("at start"), "\(plain)")
    }
}
