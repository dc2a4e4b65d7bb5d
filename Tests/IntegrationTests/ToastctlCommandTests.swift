// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// What a new user tried first, on the real binaries.
@Suite("toastctl as a new user uses it")
struct ToastctlCommandTests {
    @Test func everyToolAnswersVersion() throws {
        for tool in ["toastd", "toastctl", "toast-tail", "toast-notify"] {
            let outcome = try DaemonFixture.run(DaemonFixture.binaryDirectory.appending(path: tool).path, ["--version"])
            #expect(outcome.status == 0, "\(tool): \(outcome.stderr)")
            #expect(outcome.stdout == ProtocolInfo.toolVersion, "\(tool)")
        }
    }

    @Test func notifySendHabitsWork() throws {
        let daemon = try DaemonFixture()
        let pair = try JSONValue.parse(daemon.toastctl("add", "Backup", "All files copied", "--json").stdout)
        #expect(pair["toast"]?["title"] == "Backup")
        #expect(pair["toast"]?["message"] == "All files copied")
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let piped = try DaemonFixture.run(
            "/bin/sh", ["-c", "printf 'line one\\nline two\\n' | \(toastctl) add --title Log - --json"],
            environment: ["TOASTD_SOCKET": daemon.socket]
        )
        let toast = try JSONValue.parse(piped.stdout)["toast"]
        #expect(toast?["message"] == "line one\nline two")
        #expect(toast?["title"] == "Log")
        let twice = try daemon.toastctl("add", "A", "B", "--title", "C")
        #expect(twice.status == 2)
        #expect(try daemon.toastctl("add", "A", "B", "C").status == 2)
    }

    /// notify-send's flags on `toastctl add` (issue #42), each onto toastd's own word.
    @Test func notifySendFlagsMapOntoToastFields() throws {
        let daemon = try DaemonFixture()
        func toast(_ arguments: String...) throws -> JSONValue? {
            let outcome = try DaemonFixture.toastctl(["add"] + arguments + ["--json"], socket: daemon.socket)
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
            return try JSONValue.parse(outcome.stdout)["toast"]
        }
        let critical = try toast("-u", "critical", "-a", "backup", "Backup failed", "disk full")
        #expect(critical?["role"] == "failure" && critical?["duration"] == "indefinite" && critical?["urgency"] == "critical")
        #expect(critical?["source"] == "backup")
        #expect(try toast("-u", "critical", "--role", "warning", "-t", "2000", "x")?["role"] == "warning", "--role wins")
        let hinted = try toast("-t", "1500", "-c", "email.arrived", "-h", "int:value:40", "-h", "string:x-dunst-stack-tag:vol", "-e", "-i", "/tmp/a.png", "Volume")
        #expect(hinted?["duration"] == 1.5 && hinted?["category"] == "email.arrived" && hinted?["progress"] == 0.4)
        #expect(hinted?["reuseId"] == "vol" && hinted?["transient"] == true && hinted?["image"]?["path"] == "/tmp/a.png")
        #expect(try toast("-t", "0", "x")?["duration"] == "indefinite", "-t 0 never expires")
        let actions = try toast("-A", "yes=Yes", "-A", "No", "Deploy?")?["actions"]
        #expect(actions == [["id": "yes", "label": "Yes"], ["id": "1", "label": "No"]])
        // Durations with units; a bare number is seconds.
        #expect(try toast("--duration", "500ms", "x")?["duration"] == 0.5)
        #expect(try toast("--duration", "2m", "x")?["duration"] == 120)
        #expect(try toast("--duration", "5", "x")?["duration"] == 5)
        // -r replaces in place while the toast lives, and adds when it is gone.
        let id = try daemon.toastctl("add", "first", "-t", "0").stdout
        #expect(try daemon.toastctl("add", "-r", id, "replaced").stdout == id)
        #expect(try daemon.toastctl("list", "--json").stdout.contains("replaced"))
        #expect(try daemon.toastctl("add", "-r", "99999", "new").stdout != "99999")
        // Conflicts and bad values are usage errors naming the flag.
        let twice = try daemon.toastctl("add", "-t", "100", "--duration", "5", "x")
        #expect(twice.status == 2 && twice.stderr.contains("-t/--expire-time and --duration"))
        #expect(try daemon.toastctl("add", "-u", "urgent", "x").stderr.contains("-u/--urgency"))
        let hint = try daemon.toastctl("add", "-h", "string:x-unknown:1", "x")
        #expect(hint.status == 0 && hint.stderr.contains("ignoring the hint 'x-unknown'"), "a dunst script keeps working")
        let many = try DaemonFixture.toastctl(["add", "x"] + (0..<17).flatMap { ["--action", "a\($0):A"] }, socket: daemon.socket)
        #expect(many.status == 2 && many.stderr.contains("--action: at most 16"), "\(many.stderr)")
        #expect(many.stderr.contains("Usage: toastctl add"), "the subcommand's usage, not the root's: \(many.stderr)")
        // An empty standard input with a title: the title says it; with none, the error names the message.
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let titled = try DaemonFixture.run("/bin/sh", ["-c", "printf '' | \(toastctl) add --title make - --json"], environment: ["TOASTD_SOCKET": daemon.socket])
        #expect(try JSONValue.parse(titled.stdout)["toast"]?["message"] == "make", "\(titled.stderr)")
        let empty = try DaemonFixture.run("/bin/sh", ["-c", "printf '' | \(toastctl) add -"], environment: ["TOASTD_SOCKET": daemon.socket])
        #expect(empty.status == 2 && empty.stderr.contains("the message is empty") && !empty.stderr.contains("--message"))
    }

    @Test func timeoutWithoutWaitIsAUsageError() throws {
        let daemon = try DaemonFixture()
        let outcome = try daemon.toastctl("add", "x", "--timeout", "3")
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("--timeout goes with --wait"))
        #expect(try daemon.toastctl("list", "--json").stdout.contains("\"toasts\":[]"))
    }

    @Test func listShowsActionsAndUpdateChangesAndResetsEveryField() throws {
        let daemon = try DaemonFixture()
        let id = try daemon.toastctl("add", "Deploy?", "--title", "CI", "--icon", "🚀", "--duration", "indefinite", "--action", "yes:Yes", "--action", "no:No").stdout
        #expect(try daemon.toastctl("list").stdout.contains("Deploy?\t[yes: Yes, no: No]"))
        let updated = try daemon.toastctl(
            "update", id, "--no-title", "--no-icon", "--default-duration", "--no-dismissible", "--close-button", "--action", "go:Go", "--json"
        )
        #expect(updated.status == 0, "\(updated.stderr)")
        let toast = try JSONValue.parse(updated.stdout)["toast"]
        #expect(toast?["title"] == nil && toast?["icon"] == nil && toast?["duration"] == nil)
        #expect(toast?["dismissible"] == false && toast?["closeButton"] == true)
        #expect(toast?["actions"] == [["id": "go", "label": "Go"]])
        let cleared = try JSONValue.parse(daemon.toastctl("update", id, "--no-actions", "--dismissible", "--json").stdout)["toast"]
        #expect(cleared?["actions"] == [])
        #expect(cleared?["dismissible"] == true)
        #expect(try daemon.toastctl("update", id, "--title", "x", "--no-title").status == 2)
    }

    /// dunstctl's and makoctl's habits (issue #42): count, history rm, --since 1h,
    /// --source globs, a readable list, named rules switched at run time, menu.
    @Test func dunstctlAndMakoctlHabits() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/toastd-habits-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            [[rule]]
            name = "quiet-chat"
            match = { source = "chat*" }
            drop = true
            """.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        let daemon = try DaemonFixture(arguments: ["--config", directory + "/config.toml", "--state-dir", directory + "/state"])
        _ = try daemon.toastctl("add", "Download complete", "report.pdf (2.4 MB)", "-a", "Firefox", "-t", "0")
        // A list a person can read: the title and the source are there (piped: tab-separated).
        let listed = try daemon.toastctl("list").stdout.split(separator: "\t").map(String.init)
        #expect(listed.contains("Firefox") && listed.contains("Download complete — report.pdf (2.4 MB)"), "\(listed)")
        #expect(listed.count >= 6 && listed[1].hasSuffix("s"), "an age: \(listed)")
        // The named rule drops chat; switched off, chat shows; the switch survives a restart.
        #expect(try daemon.toastctl("add", "hi", "-a", "chatty").stdout != "")
        #expect(try daemon.toastctl("count", "displayed").stdout == "1", "dropped by the rule")
        #expect(try daemon.toastctl("rule", "quiet-chat", "disable").stdout == "quiet-chat off")
        #expect(try daemon.toastctl("rule", "nope", "disable").status == 1)
        _ = try daemon.toastctl("add", "hello again", "-a", "chatty", "-t", "0")
        #expect(try daemon.toastctl("count", "displayed").stdout == "2")
        #expect(try daemon.toastctl("rule").stdout == "quiet-chat\toff")
        let counted = try daemon.toastctl("count").stdout
        #expect(counted.hasPrefix("Waiting: 0\nCurrently displayed: 2\nHistory: "), "\(counted)")
        // menu: a real program reads the choices on its stdin and answers one.
        _ = try daemon.toastctl("add", "Deploy?", "-A", "yes=Ship it", "-A", "no=Wait", "-t", "0")
        let chosen = try daemon.toastctl("menu", "--dmenu", "grep 'Wait'")
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(try daemon.toastctl("count", "displayed").stdout == "2", "the action ended it")
        #expect(try daemon.toastctl("menu", "--dmenu", "true").status == 1, "nothing chosen")
        // History: by age, by glob, and one entry forgotten.
        _ = try daemon.toastctl("clear")
        let recent = try daemon.toastctl("history", "--since", "1h").stdout
        #expect(recent.contains("Deploy?") && recent.contains("report.pdf"), "\(recent)")
        #expect(try daemon.toastctl("history", "--since", "2999-01-01T00:00Z").stdout.isEmpty)
        #expect(try daemon.toastctl("history", "--since", "yesterday").status == 2)
        let firefox = try daemon.toastctl("history", "--source", "Fire*").stdout
        #expect(firefox.contains("report.pdf") && !firefox.contains("Deploy?"), "\(firefox)")
        let id = String(firefox.prefix { $0 != "\t" })
        #expect(try daemon.toastctl("history", "rm", id).status == 0)
        #expect(!(try daemon.toastctl("history").stdout.contains("report.pdf")))
        #expect(try daemon.toastctl("history", "rm", id).status == 1, "gone")
        // The rule's switch came back with toastd.
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        let restarted = try DaemonFixture(arguments: ["--config", directory + "/config.toml", "--state-dir", directory + "/state"])
        #expect(try restarted.toastctl("rule").stdout == "quiet-chat\toff")
    }
}
