// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The whole service under a real `systemd --user` and `systemd-journald`,
/// in a private mount namespace: scripts/systemd-e2e.sh does the work (it
/// needs root, as CI has) and this test runs it on the binaries under test.
@Suite("toastd under a real systemd user manager", .serialized)
struct SystemdUserManagerTests {
    static var possible: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    }

    @Test(.enabled(if: possible))
    func socketActivationStatusJournalWatchdogAndRestartWithoutRefusals() throws {
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "scripts/systemd-e2e.sh")
        let outcome = try DaemonFixture.run("/bin/bash", [script.path, DaemonFixture.binaryDirectory.path])
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
        #expect(outcome.stdout.contains("systemd-e2e: all passed"))
    }
}
