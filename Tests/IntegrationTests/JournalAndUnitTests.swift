// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import Testing
import ToastCore
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

    /// A client-chosen source with a window-title sequence, OSC 52 into
    /// the clipboard, a C1 CSI, a forged line and a bidi override: toastd's
    /// log on stderr (a terminal, with `toastd &`) shows each escaped, and
    /// the reply's JSON escapes the C1 control and the override too.
    @Test func untrustedTextInTheLogIsEscaped() throws {
        let daemon = try DaemonFixture(arguments: ["--log-level", "info", "--log-target", "stderr", "--ephemeral"])
        let source = "x\u{1B}]0;pwned\u{7}\u{1B}]52;c;cm0gLXJmIH4=\u{7}\u{9B}31m\n2026-01-01T00:00:00+0000 error toastd: forged\u{202E}"
        let client = try daemon.connect()
        let reply = try client.request(["op": "add", "toast": ["message": "m", "source": .string(source)]])
        #expect(reply["ok"] == true)
        try client.sendLine(Array(#"{"op":"add","toast":{"message":"m","source":"\u009b\u202e"}}"#.utf8))
        let raw = try client.readLine()
        #expect(raw["ok"] == true)
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        let bytes = [UInt8](daemon.log.fileHandleForReading.readDataToEndOfFile())
        let log = String(decoding: bytes, as: UTF8.self)
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "raw escape sequences in the log")
        #expect(!log.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E }, "raw C1 or bidi in the log")
        #expect(!log.contains("\nforged") && !log.split(separator: "\n").contains { $0.hasPrefix("2026-01-01") }, "a forged line: \(log)")
        #expect(log.contains(#"x\u{1B}]0;pwned\u{7}"#), "\(log)")
        #expect(log.contains(#"\u{9B}"#) && log.contains(#"\u{202E}"#), "\(log)")
    }

    /// The process's mapped file pages: RSS less anonymous memory, in KiB.
    static func mappedFileKiB(_ pid: Int32) -> Int {
        guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return 0 }
        func kibibytes(_ key: String) -> Int {
            rollup.split(separator: "\n").first { $0.hasPrefix(key + ":") }.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        }
        return kibibytes("Rss") - kibibytes("Anonymous")
    }

    /// The units, as install.sh generates them from systemd/*.in for a
    /// prefix (here /usr, staged with DESTDIR, as a package does), pass
    /// `systemd-analyze verify --user` with no error and no warning: it
    /// exits 0 on unknown keys, so any output fails the check.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func theUnitFilesVerifyCleanly() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "toastd-units-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = home.appending(path: "runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let stage = home.path + "/stage"
        let prefix = home.path + "/usr"
        let staged = try DaemonFixture.run(
            "/bin/bash", [root.appending(path: "scripts/install.sh").path, "--prefix", prefix],
            environment: ["HOME": home.path, "DESTDIR": stage, "TOASTD_BIN_DIR": DaemonFixture.binaryDirectory.path])
        #expect(staged.status == 0, "\(staged.stderr)")
        // The units name the prefix's binaries; for verify to find them, they go where the units say.
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: stage + prefix + "/bin", toPath: prefix + "/bin")
        let units = stage + prefix + "/lib/systemd/user"
        let service = try String(contentsOfFile: units + "/toastd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix)/bin/toastd\n") && !service.contains("@BINDIR@") && !service.contains("%h/.local"))
        let outcome = try DaemonFixture.run(
            "/usr/bin/systemd-analyze",
            ["verify", "--user"] + ["toastd.socket", "toastd.service", "toast-notify.service", "toast-overlay.service"].map { units + "/" + $0 },
            environment: ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path, "SYSTEMD_LOG_COLOR": "0"]
        )
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty && outcome.stdout.isEmpty, "\(outcome.stderr)\(outcome.stdout)")
        // The list of what was put down names every file staged.
        let listed = try String(contentsOfFile: stage + prefix + "/share/toastd/installed-files", encoding: .utf8).split(separator: "\n")
        #expect(listed.contains { $0 == "\(prefix)/share/man/man5/toastd.toml.5" } && listed.count > 30)
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
        #expect(try String(contentsOfFile: dropIn, encoding: .utf8).contains("ExecStart=\(home.path)/.local/bin/toastd --freedesktop"))
        #expect(try String(contentsOfFile: busService, encoding: .utf8).contains("SystemdService=toastd.service"))
        let verify = try DaemonFixture.run(
            "/usr/bin/systemd-analyze", ["verify", "--user", home.path + "/.config/systemd/user/toastd.service"], environment: environment
        )
        #expect(verify.status == 0)
        #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stderr)\(verify.stdout)")

        // Man pages and completions for every tool; `man toastctl` finds its page.
        #expect(FileManager.default.fileExists(atPath: home.path + "/.config/systemd/user/toast-overlay.service"))
        for tool in ["toastd", "toastctl", "toast-tail", "toast-notify", "toast-overlay"] {
            #expect(FileManager.default.fileExists(atPath: home.path + "/.local/share/man/man1/\(tool).1"), "\(tool).1")
            #expect(FileManager.default.fileExists(atPath: home.path + "/.local/share/bash-completion/completions/\(tool)"), "\(tool) completion")
        }
        #expect(plain.stderr.contains("is not on your PATH"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let man = try DaemonFixture.run(
                "/usr/bin/man", ["-P", "cat", "toastctl"], environment: environment.merging(["MANPATH": home.path + "/.local/share/man", "MANWIDTH": "80"]) { $1 }
            )
            #expect(man.status == 0, "\(man.stderr)")
            #expect(man.stdout.contains("toastctl") && man.stdout.contains("is-paused"), "\(man.stdout.prefix(300))")
        }

        // uninstall.sh takes it all away, and leaves the state and the config.
        let state = home.path + "/.local/state/toastd"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let uninstall = try DaemonFixture.run("/bin/bash", [root.appending(path: "scripts/uninstall.sh").path], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        for path in [
            "/.local/bin/toastctl", "/.local/bin/toastd", "/.local/share/man/man1/toastctl.1", "/.config/systemd/user/toastd.service",
            "/.local/share/bash-completion/completions/toast-tail", "/.config/systemd/user/toastd.service.d/freedesktop.conf",
            "/.local/share/man/man5/toastd.toml.5", "/.local/share/toastd/installed-files", "/.local/share/doc/toastd",
        ] {
            #expect(!FileManager.default.fileExists(atPath: home.path + path), "\(path) is still there")
        }
        #expect(FileManager.default.fileExists(atPath: state))
    }

    /// The committed man pages (scripts/man.sh) name every option and
    /// subcommand the tools have now: they cannot drift from the code.
    @Test func theManPagesNameEveryOption() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for tool in ["toastd", "toastctl", "toast-tail", "toast-notify", "toast-overlay"] {
            let page = try String(contentsOf: root.appending(path: "docs/man/\(tool).1"), encoding: .utf8)
            let dump = try DaemonFixture.run(DaemonFixture.binaryDirectory.appending(path: tool).path, ["--experimental-dump-help"])
            let help = try JSONValue.parse(dump.stdout)
            var missing: [String] = []
            func visit(_ command: JSONValue) {
                // A tool without subcommands has no `help` one in its page (scripts/man.sh takes it out).
                if let name = command["commandName"]?.stringValue, name != "help" || tool == "toastctl",
                    !page.contains("Em \(name)") && !page.contains("Nm \(name)")
                {
                    missing.append(name)
                }
                if case .array(let arguments)? = command["arguments"] {
                    for argument in arguments {
                        guard case .array(let names)? = argument["names"] else { continue }
                        for name in names where name["kind"] == "long" {
                            if let long = name["name"]?.stringValue, !page.contains(" -\(long)") { missing.append("--\(long)") }
                        }
                    }
                }
                if case .array(let subcommands)? = command["subcommands"] { subcommands.forEach(visit) }
            }
            visit(help["command"] ?? [:])
            #expect(missing.isEmpty, "docs/man/\(tool).1 lacks \(Set(missing).sorted()); run scripts/man.sh")
        }
    }

    /// Each page renders with man(1) and has the sections a packager ships
    /// (issue #42): a synopsis that matches the tool, its own exit statuses,
    /// ENVIRONMENT, FILES, EXAMPLES and SEE ALSO; and the configuration's page.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man")))
    func theManPagesRenderWithEverySection() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for page in ["toastd.1", "toastctl.1", "toast-tail.1", "toast-notify.1", "toast-overlay.1", "toastd.toml.5"] {
            let rendered = try DaemonFixture.run(
                "/usr/bin/man", ["-l", root.appending(path: "docs/man/\(page)").path], environment: ["MANWIDTH": "100", "MANPAGER": "cat", "LANG": "C.UTF-8"])
            #expect(rendered.status == 0, "\(page): \(rendered.stderr)")
            let headings = Set(rendered.stdout.split(separator: "\n").filter { $0.first?.isUppercase == true }.map { String($0) })
            for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "EXAMPLES", "SEE ALSO"] {
                #expect(headings.contains(section), "\(page) lacks \(section)")
            }
            if page.hasSuffix(".1") {
                for section in ["EXIT STATUS", "ENVIRONMENT", "FILES"] { #expect(headings.contains(section), "\(page) lacks \(section)") }
                #expect(!rendered.stdout.contains("utility exits 0 on success"), "\(page): the generic exit status")
            }
            if page != "toastctl.1" && page.hasSuffix(".1") {
                #expect(!rendered.stdout.contains("subcommand"), "\(page) has no subcommands")
            }
        }
        let tail = try String(contentsOf: root.appending(path: "docs/man/toast-tail.1"), encoding: .utf8)
        #expect(tail.contains("Up/Down"))
        let config = try String(contentsOf: root.appending(path: "docs/man/toastd.toml.5"), encoding: .utf8)
        for key in ["max_visible", "max_toasts_per_source", "history_size", "default_level", "inhibit_level", "max_running", "title_regex",
                    "desktop_entry", "actionable", "transition_ms", "icon_theme", "corner_radius", "name"] {
            #expect(config.contains(key), "toastd.toml(5) lacks \(key)")
        }
    }
}
