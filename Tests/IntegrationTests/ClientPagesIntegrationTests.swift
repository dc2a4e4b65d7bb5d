// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

/// toastd holds the toastctl beside its executable in memory
/// (`ClientPages`), so that a session's first `toastctl add` after a rest
/// does not wait on the disk for it.
@Suite("toastctl held by toastd")
struct ClientPagesIntegrationTests {
    /// The real toastd, linked (or copied) into a directory of its own beside
    /// a `toastctl` of `bytes` bytes; the line of toastd's /proc/PID/maps that
    /// maps that toastctl once toastd is ready, waiting up to 10 s for it.
    /// (What is not held, a file larger than the front or not a regular
    /// file, is ClientPagesTests'.)
    static func heldMapping(besideToastctlOf bytes: Int) throws -> Substring? {
        let directory = try TemporaryDirectory(prefix: "toastd-held")
        let toastd = directory.path + "/toastd"
        let built = DaemonFixture.binaryDirectory.appending(path: "toastd").path
        if link(built, toastd) != 0 { try FileManager.default.copyItem(atPath: built, toPath: toastd) }
        let toastctl = directory.path + "/toastctl"
        try Data(repeating: 0x7f, count: bytes).write(to: URL(filePath: toastctl))
        let daemon = try DaemonFixture(executable: toastd)
        daemon.alsoRemoved.append(directory)
        let pid = daemon.process.processIdentifier
        // Held once toastd is ready, by the thread that lets go of its start-up code pages.
        for _ in 0..<200 where daemon.process.isRunning {
            if let line = ProcFile.read("/proc/\(pid)/maps")?.split(separator: "\n").first(where: { $0.hasSuffix(" " + toastctl) }) {
                return line
            }
            usleep(50_000)
        }
        return nil
    }

    @Test func theToastctlBesideToastdIsMappedReadOnlyAndShared() throws {
        let line = try #require(try Self.heldMapping(besideToastctlOf: 36_000), "toastd did not map the toastctl beside it")
        #expect(line.split(separator: " ")[1] == "r--s", "\(line)")
    }
}
