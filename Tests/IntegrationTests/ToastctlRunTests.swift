// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// `toastctl run`'s HUD never outlives toastctl: Ctrl-C in a real terminal
/// turns it into an "Interrupted" toast, and kill -9 ends it with the
/// connection (its source is bound).
@Suite("toastctl run, interrupted", .serialized)
struct ToastctlRunTests {
    static let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path

    static func liveToasts(_ daemon: DaemonFixture) throws -> [JSONValue] {
        guard case .array(let toasts)? = try JSONValue.parse(daemon.toastctl("list", "--json").stdout)["toasts"] else { return [] }
        return toasts
    }

    static func waitForHUD(_ daemon: DaemonFixture) throws -> Bool {
        for _ in 0..<300 {
            if try liveToasts(daemon).contains(where: { $0["title"] == "Running" }) { return true }
            usleep(10_000)
        }
        return false
    }

    @Test(.enabled(if: Tmux.available))
    func ctrlCInATerminalInterruptsTheCommandAndReplacesTheHUD() throws {
        let daemon = try DaemonFixture()
        let tmux = try Tmux(columns: 80, rows: 10, environment: ["TOASTD_SOCKET": daemon.socket])
        try tmux.type(0, "\(Self.toastctl) run -- sleep 30; echo RUN-EXIT-$?")
        #expect(try Self.waitForHUD(daemon))
        try tmux.keys(0, "C-c")
        // The typed line holds "RUN-EXIT-$?"; the shell prints the status in its place.
        let screen = try tmux.waitFor(0) { $0.range(of: #"RUN-EXIT-[0-9]"#, options: .regularExpression) != nil }
        #expect(screen.contains("RUN-EXIT-130"), "\(screen)")
        let toasts = try Self.liveToasts(daemon)
        #expect(!toasts.contains { $0["title"] == "Running" }, "\(toasts)")
        let result = try #require(toasts.first)
        #expect(result["title"] == "Interrupted")
        #expect(result["progress"] == nil)
        #expect(result["dismissible"] == true)
    }

    @Test func killNineLeavesNoHUDBehind() throws {
        let daemon = try DaemonFixture()
        let watcher = try daemon.subscribe()
        let pid = try DaemonFixture.spawn(Self.toastctl, ["run", "--", "sleep", "30"], environment: ["TOASTD_SOCKET": daemon.socket])
        #expect(try Self.waitForHUD(daemon))
        kill(pid, SIGKILL)
        DaemonFixture.wait(pid)
        var ended: JSONValue?
        while ended == nil {
            let event = try watcher.readLine(timeout: 5_000)
            if event["event"] == "dismissed" { ended = event }
        }
        #expect(ended?["reason"] == "invalidated")
        #expect(try Self.liveToasts(daemon).isEmpty)
    }

    /// A signal sent to toastctl alone (systemd, kill) reaches the command.
    @Test func sigtermIsForwardedToTheCommand() throws {
        let daemon = try DaemonFixture()
        let output = daemon.directory.appending(path: "run.out").path
        let pid = try DaemonFixture.spawn(
            Self.toastctl, ["run", "--", "sh", "-c", "trap 'echo got-TERM; exit 3' TERM; echo ready; sleep 30 & wait"],
            environment: ["TOASTD_SOCKET": daemon.socket], stdout: output
        )
        #expect(try Self.waitForHUD(daemon))
        for _ in 0..<300 where (try? String(contentsOfFile: output, encoding: .utf8))?.contains("ready") != true { usleep(10_000) }
        kill(pid, SIGTERM)
        let status = DaemonFixture.wait(pid)
        #expect(status == 128 + SIGTERM)
        #expect((try? String(contentsOfFile: output, encoding: .utf8))?.contains("got-TERM") == true)
        #expect(try Self.liveToasts(daemon).first?["title"] == "Interrupted")
    }

    @Test func aFinishedRunKeepsItsResultAfterToastctlExits() throws {
        let daemon = try DaemonFixture()
        let run = try daemon.toastctl("run", "--", "true")
        #expect(run.status == 0)
        usleep(100_000)
        let toasts = try Self.liveToasts(daemon)
        #expect(toasts.count == 1)
        #expect(toasts.first?["title"] == "Done")
    }

    /// A failure: quoted as a shell would write it, at the top, until dismissed;
    /// a command that never started says so (issue #42).
    @Test func aFailureIsQuotedStaysAndSaysWhenItNeverStarted() throws {
        let daemon = try DaemonFixture()
        let run = try daemon.toastctl("run", "--", "sh", "-c", "exit 3")
        #expect(run.status == 3)
        usleep(100_000)
        var toasts = try Self.liveToasts(daemon)
        #expect(toasts.count == 1)
        #expect(toasts.first?["title"] == "Failed")
        #expect(toasts.first?["message"]?.stringValue?.hasPrefix("sh -c 'exit 3' exited with status 3") == true, "\(toasts)")
        #expect(toasts.first?["alignment"] == "top" && toasts.first?["duration"] == "indefinite")
        let missing = try daemon.toastctl("run", "--", "/nonexistent/tool", "--flag")
        #expect(missing.status == 127)
        usleep(100_000)
        toasts = try Self.liveToasts(daemon)
        let notStarted = toasts.first { $0["title"] == "Did not start" }
        #expect(notStarted?["message"]?.stringValue?.hasPrefix("/nonexistent/tool --flag did not start") == true, "\(toasts)")
        #expect(try daemon.toastctl("run", "--failure-duration", "soon", "--", "true").status == 2)
    }
}
