// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The start-up benchmark's swift-nio floor (Sources/nio-echo): the bench
/// sets a socket-activated toastd beside it, so it must answer its first
/// client both as toastd is started by systemd-socket-activate (descriptor
/// 3) and on a path of its own.
@Suite("The start-up floor's swift-nio echo", .serialized)
struct StartUpFloorTests {
    /// SIGKILL: a child started from a test's thread inherits its blocked
    /// signals, SIGTERM among them, and nio-echo does not unblock them.
    static func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func waitForFile(_ path: String) {
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: path) { usleep(10_000) }
    }

    @Test func itEchoesOnAPathOfItsOwn() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "nio-echo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "s.sock").path
        let server = Process()
        server.executableURL = DaemonFixture.binaryDirectory.appending(path: "nio-echo")
        server.arguments = [path]
        try server.run()
        defer { Self.stop(server) }
        Self.waitForFile(path)
        #expect(try RawSocket.exchange(path, "hello") == "hello\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func itServesTheSocketItIsStartedOn() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "nio-echo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "s.sock").path
        let activator = Process()
        activator.executableURL = URL(filePath: "/usr/bin/systemd-socket-activate")
        // The path argument names a file nobody creates: the socket it serves is descriptor 3.
        activator.arguments = ["-l", path, DaemonFixture.binaryDirectory.appending(path: "nio-echo").path, directory.appending(path: "unused").path]
        activator.standardError = FileHandle.nullDevice
        try activator.run()
        defer { Self.stop(activator) }
        Self.waitForFile(path)
        #expect(try RawSocket.exchange(path, "first") == "first\n")
        #expect(try RawSocket.exchange(path, "second") == "second\n", "the same server answers the next client")
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "unused").path))
    }
}
