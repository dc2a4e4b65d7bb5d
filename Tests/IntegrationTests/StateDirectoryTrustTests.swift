// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The state files another user planted (issue #38), against the real
/// daemon run as a second uid (setpriv, as root in CI): toastd never uses
/// a directory or a file that user did not make for it, and never falls
/// back to a shared path.
@Suite("State directory against a second uid", .serialized)
struct StateDirectoryTrustTests {
    typealias Security = SocketSecurityTests
    static let victim = Security.user + 2

    static func toastd(_ binaries: URL, _ arguments: [String], timeout: Int, unset: [String] = []) throws -> DaemonFixture.Outcome {
        let socket = binaries.appending(path: "s-\(UUID().uuidString.prefix(6)).sock").path
        let unsetting = unset.flatMap { ["-u", $0] }
        return try DaemonFixture.run(
            "/usr/bin/timeout",
            ["\(timeout)", "/usr/bin/setpriv"]
                + Security.asUser(victim, unsetting + [binaries.appending(path: "toastd").path, "--socket", socket, "--log-level", "error"] + arguments)
        )
    }

    static func binaries() throws -> URL {
        let binaries = try Security.binaries()
        chmod(binaries.path, 0o1777)
        return binaries
    }

    /// With no HOME, XDG_STATE_HOME or XDG_RUNTIME_DIR, the state
    /// directory was /tmp/.local/state/toastd, which anyone could make first.
    @Test(.enabled(if: Security.canSwitchUsers))
    func withNoHomeToastdRefusesToGuessASharedPath() throws {
        let binaries = try Self.binaries()
        defer { try? FileManager.default.removeItem(at: binaries) }
        let outcome = try Self.toastd(binaries, [], timeout: 5, unset: ["HOME", "XDG_STATE_HOME", "STATE_DIRECTORY"])
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("no state directory") && outcome.stderr.contains("--state-dir"), "\(outcome.stderr)")
    }

    /// A directory planted by nobody, mode 0777, with a database of
    /// nobody's at 0666 (the review had toastd adopt it, so nobody read the
    /// victim's toasts). toastd serves from memory, says why, and leaves
    /// the planted files as they were.
    @Test(.enabled(if: Security.canSwitchUsers))
    func aDirectoryPlantedByAnotherUserIsNotUsed() throws {
        let binaries = try Self.binaries()
        defer { try? FileManager.default.removeItem(at: binaries) }
        let planted = binaries.appending(path: "planted").path
        mkdir(planted, 0o777)
        chmod(planted, 0o777)
        chown(planted, 65534, 65534)
        let database = planted + "/toastd.sqlite"
        _ = FileManager.default.createFile(atPath: database, contents: Data())
        chmod(database, 0o666)
        chown(database, 65534, 65534)

        let outcome = try Self.toastd(binaries, ["--state-dir", planted], timeout: 2)
        #expect(outcome.status == 124, "toastd keeps serving (from memory) until timeout stops it: \(outcome.stderr)")
        #expect(outcome.stderr.contains("persistence degraded") && outcome.stderr.contains("cannot be trusted"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("belongs to uid 65534"), "\(outcome.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: planted)
        #expect(names == ["toastd.sqlite"], "toastd made files in a directory it does not trust: \(names)")
        var info = stat()
        #expect(stat(database, &info) == 0 && info.st_uid == 65534 && info.st_size == 0)

        // The victim's own directory, with a journal symlinked to a file of
        // the victim's: the file is neither followed nor truncated.
        let own = binaries.appending(path: "own").path
        mkdir(own, 0o700)
        chown(own, Self.victim, Self.victim)
        let precious = binaries.appending(path: "precious").path
        try Data("precious".utf8).write(to: URL(filePath: precious))
        chown(precious, Self.victim, Self.victim)
        symlink(precious, own + "/toastd.journal-a")
        lchown(own + "/toastd.journal-a", Self.victim, Self.victim)
        let second = try Self.toastd(binaries, ["--state-dir", own], timeout: 2)
        #expect(second.status == 124, "\(second.stderr)")
        #expect(second.stderr.contains("symbolic link"), "\(second.stderr)")
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "precious")
    }
}
