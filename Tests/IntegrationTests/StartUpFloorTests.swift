// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The start-up benchmark's swift-nio floor (Sources/nio-echo): the bench
/// sets a socket-activated toastd beside it, so it must answer its first
/// client both as toastd is started by systemd-socket-activate (descriptor
/// 3) and on a path of its own.
@Suite("The start-up floor's swift-nio echo", .serialized)
struct StartUpFloorTests {
    /// Ends a server as the benchmark does (SIGTERM), and says whether it
    /// ended by it. The exchanges before are `try?`, so that a failed one
    /// still reaches this and leaves no server behind.
    static func stop(_ pid: pid_t) -> Bool {
        kill(pid, SIGTERM)
        return DaemonFixture.wait(pid) == 128 + SIGTERM
    }

    static func waitForFile(_ path: String) {
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: path) { usleep(10_000) }
    }

    @Test func itEchoesOnAPathOfItsOwn() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "nio-echo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "s.sock").path
        let server = try DaemonFixture.spawn(DaemonFixture.binaryDirectory.appending(path: "nio-echo").path, [path])
        // Until it accepts, not until its file exists: the file is there from
        // bind(2), before listen(2), and a loaded machine (CI runs the suites
        // side by side) can hold the server between the two.
        SocketFileProbe.waitUntilAccepting(path)
        #expect((try? RawSocket.exchange(path, "hello")) == "hello\n")
        #expect(Self.stop(server), "SIGTERM ends it")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func itServesTheSocketItIsStartedOn() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "nio-echo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "s.sock").path
        // The path argument names a file nobody creates: the socket it serves is descriptor 3.
        let activator = try DaemonFixture.spawn(
            "/usr/bin/systemd-socket-activate",
            ["-l", path, DaemonFixture.binaryDirectory.appending(path: "nio-echo").path, directory.appending(path: "unused").path]
        )
        Self.waitForFile(path)
        #expect((try? RawSocket.exchange(path, "first")) == "first\n")
        #expect((try? RawSocket.exchange(path, "second")) == "second\n", "the same server answers the next client")
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "unused").path))
        #expect(Self.stop(activator), "SIGTERM ends it")
    }
}
