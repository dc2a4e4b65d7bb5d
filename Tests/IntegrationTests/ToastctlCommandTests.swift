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
}
