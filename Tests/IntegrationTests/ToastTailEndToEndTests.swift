// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// toast-tail in real terminals: two tmux panes tail one daemon.
@Suite("toast-tail in tmux", .serialized, .enabled(if: Tmux.available))
struct ToastTailEndToEndTests {
    let tail = DaemonFixture.binaryDirectory.appending(path: "toast-tail").path

    @Test func twoPanesShowTheStackAndKeysActOnIt() throws {
        let daemon = try DaemonFixture()
        let watcher = try daemon.subscribe()
        let tmux = try Tmux(columns: 80, rows: 40, environment: ["TOASTD_SOCKET": daemon.socket, "LANG": "C.UTF-8"])
        try tmux.split()
        try tmux.type(0, "stty -g > \(daemon.directory.path)/before; \(tail); echo TAIL-EXIT-$?; stty -g > \(daemon.directory.path)/after")
        try tmux.type(1, "\(tail) --color never; echo TAIL-EXIT-$?")
        for pane in [0, 1] { try tmux.waitFor(pane) { $0.contains("● toastd") } }
        #expect(try tmux.format(0, "#{alternate_on}") == "1")

        // A toast appears in both panes.
        #expect(try daemon.toastctl("add", "Hello from tmux 磁盘", "--title", "E2E", "--duration", "indefinite").status == 0)
        for pane in [0, 1] {
            let screen = try tmux.waitFor(pane) { $0.contains("Hello from tmux 磁盘") }
            #expect(screen.contains("E2E"), "pane \(pane):\n\(screen)")
        }
        _ = try watcher.readLine(timeout: 5_000)  // presented

        // d in one pane dismisses it everywhere.
        try tmux.keys(0, "d")
        let dismissed = try watcher.readLine(timeout: 5_000)
        #expect(dismissed["event"] == "dismissed")
        #expect(dismissed["reason"] == "user")
        for pane in [0, 1] { #expect(!(try tmux.waitFor(pane) { !$0.contains("Hello from tmux") }).contains("Hello from tmux")) }

        // 2 invokes the second action of the selected toast.
        #expect(try daemon.toastctl("add", "Deploy?", "--action", "no:No", "--action", "yes:Yes", "--duration", "indefinite").status == 0)
        try tmux.waitFor(0) { $0.contains("[2] Yes") }
        _ = try watcher.readLine(timeout: 5_000)
        try tmux.keys(0, "2")
        let action = try watcher.readLine(timeout: 5_000)
        #expect(action["event"] == "action")
        #expect(action["action"] == "yes")

        // A toast that cannot be dismissed says so instead.
        #expect(try daemon.toastctl("add", "Installing", "--not-dismissible", "--duration", "indefinite").status == 0)
        try tmux.waitFor(0) { $0.contains("Installing") }
        try tmux.keys(0, "d")
        #expect(try tmux.waitFor(0) { $0.contains("not dismissible") }.contains("not dismissible"))

        // Resize: cards reflow to the new width.
        try tmux.run(["resize-window", "-t", "main", "-x", "30"])
        let border = "╔" + String(repeating: "═", count: 28) + "╗"
        let narrow = try tmux.waitFor(1) { $0.contains(border) }
        #expect(narrow.split(separator: "\n").contains { $0 == border }, "\(narrow)")

        // q quits and leaves the terminal as it was found.
        try tmux.keys(0, "q")
        try tmux.waitFor(0) { $0.contains("TAIL-EXIT-0") }
        #expect(try tmux.format(0, "#{alternate_on} #{cursor_flag}") == "0 1")
        usleep(200_000)
        let before = try String(contentsOfFile: daemon.directory.path + "/before", encoding: .utf8)
        let after = try String(contentsOfFile: daemon.directory.path + "/after", encoding: .utf8)
        #expect(before == after, "stty settings changed")

        // SIGTERM restores it too.
        let pid = try #require(try DaemonFixture.run("/usr/bin/pgrep", ["-f", "toast-tail --color never"]).stdout.split(separator: "\n").first)
        kill(pid_t(pid)!, SIGTERM)
        try tmux.waitFor(1) { $0.contains("TAIL-EXIT-") }
        #expect(try tmux.format(1, "#{alternate_on} #{cursor_flag}") == "0 1")
    }

    @Test func aViewerSurvivesTheDaemonGoingAwayAndResyncs() throws {
        let daemon = try DaemonFixture()
        let tmux = try Tmux(columns: 70, rows: 20, environment: ["TOASTD_SOCKET": daemon.socket, "LANG": "C.UTF-8"])
        try tmux.type(0, tail)
        #expect(try daemon.toastctl("add", "before the restart", "--duration", "indefinite").status == 0)
        try tmux.waitFor(0) { $0.contains("before the restart") }

        daemon.process.terminate()
        daemon.process.waitUntilExit()
        let gone = try tmux.waitFor(0) { $0.contains("disconnected") }
        #expect(gone.contains("disconnected"), "\(gone)")

        // Another daemon (a fresh state, so a new instance): the viewer must
        // not keep what the old one showed.
        let restarted = try DaemonFixture.restart(on: daemon, freshState: true)
        defer { restarted.terminate(); restarted.waitUntilExit() }
        #expect(try DaemonFixture.toastctl(["add", "after the restart", "--duration", "indefinite"], socket: daemon.socket).status == 0)
        let back = try tmux.waitFor(0) { $0.contains("after the restart") && $0.contains("● toastd") }
        #expect(back.contains("after the restart"), "\(back)")
        #expect(!back.contains("before the restart"), "the snapshot of the new daemon replaces the old stack")

        // Ctrl-C quits and restores the terminal too.
        try tmux.keys(0, "C-c")
        try tmux.waitFor(0) { !$0.contains("after the restart") }
        #expect(try tmux.format(0, "#{alternate_on} #{cursor_flag}") == "0 1")
    }

    @Test func linesAndJSONModesForPipes() throws {
        let daemon = try DaemonFixture()
        let json = Process()
        json.executableURL = URL(filePath: tail)
        json.arguments = ["--json", "--socket", daemon.socket]
        let output = Pipe()
        json.standardOutput = output
        try json.run()
        let lines = Process()
        lines.executableURL = URL(filePath: tail)
        lines.arguments = ["--socket", daemon.socket]  // stdout is a pipe: lines mode
        let readable = Pipe()
        lines.standardOutput = readable
        try lines.run()
        usleep(300_000)
        #expect(try daemon.toastctl("add", "piped \u{1B}[31m", "--role", "warning").status == 0)
        usleep(300_000)
        json.terminate()
        lines.terminate()
        let events = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(events.first.map { (try? JSONValue.parse(String($0)))?["event"] } == "snapshot")
        #expect(events.contains { (try? JSONValue.parse(String($0)))?["event"] == "presented" })
        let text = String(decoding: readable.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("presented 1 warning: piped \\u{1B}[31m"), "\(text)")
        #expect(!text.contains("\u{1B}"))

        let once = try DaemonFixture.run(tail, ["--once", "--socket", daemon.socket])
        #expect(once.status == 0)
        #expect(once.stdout.contains("⚠ piped"))
    }
}
