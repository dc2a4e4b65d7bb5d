import Foundation
import Logging
import Testing
@testable import Systemd

@Suite("Journal fields and unit files")
struct JournalAndUnitTests {
    @Test func metadataKeysBecomeJournalFieldNames() {
        #expect(JournalLogHandler.fieldName("toast_id") == "TOAST_ID")
        #expect(JournalLogHandler.fieldName("role") == "ROLE")
        #expect(JournalLogHandler.fieldName("toast.id-x") == "TOAST_ID_X")
        #expect(JournalLogHandler.priority(.critical) == 2)
        #expect(JournalLogHandler.priority(.info) == 6)
        #expect(JournalLogHandler.priority(.debug) == 7)
    }

    @Test func stderrIsTheJournalOnlyWhenJournalStreamNamesIt() throws {
        var status = stat()
        #expect(fstat(STDERR_FILENO, &status) == 0)
        let mine = "\(status.st_dev):\(status.st_ino)"
        #expect(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": mine]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "1:2"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: [:]))
    }

    /// Asked to log to the journal where journald is not running, toastd
    /// writes to stderr instead of losing the line.
    @Test(.enabled(if: !JournalLogHandler.journaldIsRunning))
    func withoutJournaldLinesGoToStderr() throws {
        let daemon = try DaemonFixture(arguments: ["--log-target", "journal", "--log-level", "info"])
        #expect(try daemon.toastctl("add", "logged", "--role", "failure").status == 0)
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        let log = String(decoding: daemon.log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("toast added"), "\(log)")
        #expect(log.contains("role=failure"), "\(log)")
    }

    /// Both units pass `systemd-analyze verify --user` with no error and no
    /// warning: it exits 0 on unknown keys, so any output fails the check.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func theUnitFilesVerifyCleanly() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "toastd-units-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: home) }
        let bin = home.appending(path: ".local/bin")
        let runtime = home.appending(path: "runtime")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        for tool in ["toastd", "toast-notify"] {
            try DaemonFixture.copyExecutable(tool, to: bin.appending(path: tool).path)
        }
        let units = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "systemd")
        let outcome = try DaemonFixture.run(
            "/usr/bin/systemd-analyze",
            ["verify", "--user"] + ["toastd.socket", "toastd.service", "toast-notify.service"].map { units.appending(path: $0).path },
            environment: ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path, "SYSTEMD_LOG_COLOR": "0"]
        )
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty && outcome.stdout.isEmpty, "\(outcome.stderr)\(outcome.stdout)")
    }

    /// `install.sh --freedesktop` adds the unit drop-in and the D-Bus
    /// service file (and only then); the unit with its drop-in still verifies.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func installingAsTheNotificationServerAddsTheDropInAndTheBusServiceFile() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "toastd-install-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = home.appending(path: "runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/.config", "XDG_DATA_HOME": home.path + "/.local/share",
            "XDG_RUNTIME_DIR": runtime.path, "TOASTD_BIN_DIR": DaemonFixture.binaryDirectory.path, "SYSTEMD_LOG_COLOR": "0",
        ]
        let dropIn = home.path + "/.config/systemd/user/toastd.service.d/freedesktop.conf"
        let busService = home.path + "/.local/share/dbus-1/services/org.freedesktop.Notifications.service"
        let plain = try DaemonFixture.run("/bin/bash", [root.appending(path: "scripts/install.sh").path], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dropIn) && !FileManager.default.fileExists(atPath: busService))
        let outcome = try DaemonFixture.run(
            "/bin/bash", [root.appending(path: "scripts/install.sh").path, "--freedesktop"], environment: environment
        )
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try String(contentsOfFile: dropIn, encoding: .utf8).contains("ExecStart=%h/.local/bin/toastd --freedesktop"))
        #expect(try String(contentsOfFile: busService, encoding: .utf8).contains("SystemdService=toastd.service"))
        let verify = try DaemonFixture.run(
            "/usr/bin/systemd-analyze", ["verify", "--user", home.path + "/.config/systemd/user/toastd.service"], environment: environment
        )
        #expect(verify.status == 0)
        #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stderr)\(verify.stdout)")
    }
}
