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
        try held(besideToastctlOf: bytes)?.line
    }

    /// The same, with the daemon (which removes the directory when it goes)
    /// and the toastctl's path.
    static func held(besideToastctlOf bytes: Int) throws -> (line: Substring, daemon: DaemonFixture, toastctl: String)? {
        let directory = try TemporaryDirectory(prefix: "toastd-held")
        let toastd = directory.path + "/toastd"
        let built = DaemonFixture.binaryDirectory.appending(path: "toastd").path
        if link(built, toastd) != 0 { try FileManager.default.copyItem(atPath: built, toPath: toastd) }
        let toastctl = directory.path + "/toastctl"
        try Data(repeating: 0x7f, count: bytes).write(to: URL(filePath: toastctl))
        let daemon = try DaemonFixture(executable: toastd)
        daemon.alsoRemoved.append(directory)
        // Held once toastd is ready, by the thread that lets go of its start-up code pages.
        guard let line = mapping(of: toastctl, in: daemon) else { return nil }
        return (line, daemon, toastctl)
    }

    /// The line of the daemon's /proc/PID/maps that maps `path` (not a
    /// deleted file once there), waiting up to 10 s for one that `matches`.
    static func mapping(of path: String, in daemon: DaemonFixture, matching matches: (Substring) -> Bool = { _ in true }) -> Substring? {
        let pid = daemon.process.processIdentifier
        for _ in 0..<200 where daemon.process.isRunning {
            if let line = ProcFile.read("/proc/\(pid)/maps")?.split(separator: "\n").first(where: { $0.hasSuffix(" " + path) }), matches(line) {
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

    /// An upgrade renames a new toastctl over the one toastd holds: after
    /// a request (a step), at most a second later, toastd holds the new
    /// file, and no longer the old one.
    @Test func aReplacedToastctlIsHeldAnewAfterARequest() throws {
        let (_, daemon, toastctl) = try #require(try Self.held(besideToastctlOf: 36_000), "toastd did not map the toastctl beside it")
        let replacement = toastctl + ".new"
        try Data(repeating: 0x7e, count: 20_000).write(to: URL(filePath: replacement))
        #expect(rename(replacement, toastctl) == 0)
        var status = stat()
        #expect(stat(toastctl, &status) == 0)
        let inode = "\(status.st_ino)"
        // A step more than a second after the last look.
        usleep(1_100_000)
        #expect(try daemon.toastctl("status").status == 0)
        let line = Self.mapping(of: toastctl, in: daemon) { $0.split(separator: " ", omittingEmptySubsequences: true)[4] == inode }
        #expect(line != nil, "toastd does not map the new toastctl (inode \(inode))")
        let maps = ProcFile.read("/proc/\(daemon.process.processIdentifier)/maps") ?? ""
        #expect(!maps.contains(toastctl + " (deleted)"), "toastd still maps the replaced toastctl")
    }
}
