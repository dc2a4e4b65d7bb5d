// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore
import ToastSystem

/// The configuration file, rules, modes, pause levels and inhibitors, end
/// to end: the real toastd and toastctl over a real socket.
@Suite("Rules, modes and the config file, end to end")
struct ConfigIntegrationTests {
    /// A config file in a directory of its own, and a daemon reading it.
    static func daemon(config text: String, arguments: [String] = []) throws -> (DaemonFixture, String) {
        let directory = try TemporaryDirectory(prefix: "toastd-config")
        let path = directory.path + "/config.toml"
        let daemon: DaemonFixture
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            daemon = try DaemonFixture(arguments: ["--config", path] + arguments)
        } catch {
            directory.remove()
            throw error
        }
        daemon.alsoRemoved.append(directory)
        return (daemon, path)
    }

    static func added(_ outcome: DaemonFixture.Outcome) throws -> JSONValue {
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try JSONValue.parse(outcome.stdout)
    }

    @Test func aReloadWithAChangedRuleChangesWhatHappensToTheNextAdd() throws {
        let (daemon, path) = try Self.daemon(config: """
            [[rule]]
            match = { source = "ci*" }
            set = { role = "failure" }
            """)
        let first = try Self.added(daemon.toastctl("add", "build 1", "--source", "ci-runner", "--json"))
        #expect(first["toast"]?["role"] == "failure")

        try """
            [[rule]]
            match = { source = "ci*" }
            set = { role = "warning", icon = "ci" }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let reload = try daemon.toastctl("reload")
        #expect(reload.status == 0, "\(reload.stderr)")
        #expect(reload.stdout.contains("1 rules"), "\(reload.stdout)")
        let second = try Self.added(daemon.toastctl("add", "build 2", "--source", "ci-runner", "--json"))
        #expect(second["toast"]?["role"] == "warning")
        #expect(second["toast"]?["icon"] == "ci")

        // SIGHUP reloads too.
        try """
            [[rule]]
            match = { source = "ci*" }
            drop = true
            """.write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        var dropped = false
        for _ in 0..<200 where !dropped {
            usleep(20_000)
            let outcome = try daemon.toastctl("add", "build 3", "--source", "ci-runner", "--json")
            dropped = (try? JSONValue.parse(outcome.stdout))?["dropped"] == true
        }
        #expect(dropped)
        let history = try daemon.toastctl("history", "--json")
        #expect(history.stdout.contains("\"reason\":\"dropped\""), "\(history.stdout)")
    }

    @Test func aBrokenFileIsRefusedWithItsLineAndTheOldRuleStaysInForce() throws {
        let (daemon, path) = try Self.daemon(config: """
            [[rule]]
            match = { source = "ci*" }
            set = { role = "failure" }
            """)
        try """
            # a comment

            [[rule]]
            match = { source = "ci*" }
            set = { role = "failur" }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let reload = try daemon.toastctl("reload")
        #expect(reload.status == 1)
        #expect(reload.stderr.contains("invalid_config"), "\(reload.stderr)")
        #expect(reload.stderr.contains("config.toml:5:"), "\(reload.stderr)")
        #expect(reload.stderr.contains("failur"), "\(reload.stderr)")
        let status = try JSONValue.parse(daemon.toastctl("status", "--json").stdout)
        #expect(status["configError"]?.stringValue?.contains(":5:") == true)
        let added = try Self.added(daemon.toastctl("add", "still a failure", "--source", "ci-runner", "--json"))
        #expect(added["toast"]?["role"] == "failure")

        // A good file clears the error.
        try "[[rule]]\nmatch = {}\nset = { icon = \"ok\" }\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try daemon.toastctl("reload").status == 0)
        let cleared = try JSONValue.parse(daemon.toastctl("status", "--json").stdout)
        #expect(cleared["configError"] == nil)
        #expect(cleared["rules"] == 1)
    }

    @Test func aBrokenFileAtStartMeansTheDefaultsAndALoudError() throws {
        let (daemon, _) = try Self.daemon(config: "[[rule]\nmatch = {}\n")
        let added = try Self.added(daemon.toastctl("add", "toasts still work", "--json"))
        #expect(added["toast"]?["state"] == "shown")
        let status = try JSONValue.parse(daemon.toastctl("status", "--json").stdout)
        #expect(status["configError"]?.stringValue?.contains("config.toml:1:") == true)
        #expect(status["rules"] == 0)
    }

    @Test func checkConfigPrintsEveryErrorWithItsLineAndColumn() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-check-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appending(path: "bad.toml").path
        try """
            [max_visible]
            top = 0

            [[rule]]
            match = { role = "infoo", title_regex = "(a)\\\\1" }
            set = { duration = "forever" }
            """.write(toFile: bad, atomically: true, encoding: .utf8)
        let toastd = DaemonFixture.binaryDirectory.appending(path: "toastd").path
        let refused = try DaemonFixture.run(toastd, ["--check-config", bad])
        #expect(refused.status == 1)
        let lines = refused.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(refused.stderr)")
        #expect(lines.first?.hasPrefix("\(bad):2:1: max_visible.top") == true, "\(refused.stderr)")
        #expect(lines.contains { $0.hasPrefix("\(bad):5:11: rule 1.match.role") }, "\(refused.stderr)")
        #expect(lines.contains { $0.hasPrefix("\(bad):6:9: rule 1.set.duration") }, "\(refused.stderr)")
        let good = directory.appending(path: "good.toml").path
        try "[[rule]]\nmatch = { app = \"x\" }\ndrop = true\n".write(toFile: good, atomically: true, encoding: .utf8)
        // Alone, as the README and --help write it: the default file, or --config's.
        let home = FileManager.default.temporaryDirectory.path + "/toastd-check-\(getpid())"
        try FileManager.default.createDirectory(atPath: home + "/.config/toastd", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try "[overlay]\nwidth = 360\n".write(toFile: home + "/.config/toastd/config.toml", atomically: true, encoding: .utf8)
        let alone = try DaemonFixture.run(toastd, ["--check-config"], environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
        #expect(alone.status == 0 && alone.stdout.contains("config.toml: ok"), "\(alone.stdout) \(alone.stderr)")
        let named = try DaemonFixture.run(toastd, ["--config", bad, "--check-config"])
        #expect(named.status == 1, "--config's file is the one checked")
        let accepted = try DaemonFixture.run(toastd, ["--check-config", good])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("1 rules"))
    }

    /// The toast's text reaches a rule's command only in its environment:
    /// shell syntax in a message runs nothing.
    @Test func execGetsTheToastInItsEnvironmentAndNoShellSeesTheText() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-exec-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appending(path: "env.out").path
        let pwned = directory.appending(path: "pwned").path
        let (daemon, _) = try Self.daemon(config: """
            [[rule]]
            match = { role = "failure" }
            exec = ["/usr/bin/env"]

            [[rule]]
            match = { role = "failure" }
            exec = ["/bin/sh", "-c", "env > \(out).tmp && mv \(out).tmp \(out)"]
            """)
        let message = "$(touch \(pwned)) `touch \(pwned)`"
        let title = "\"; touch \(pwned); echo \""
        let added = try Self.added(daemon.toastctl("add", message, "--title", title, "--role", "failure", "--json"))
        let id = added["id"]?.intValue ?? 0
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: out) { usleep(10_000) }
        let environment = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(environment.contains("TOAST_MESSAGE=\(message)"))
        #expect(environment.contains("TOAST_TITLE=\(title)"))
        #expect(environment.contains("TOAST_ROLE=failure"))
        #expect(environment.contains("TOAST_ID=\(id)"))
        #expect(environment.contains { $0.hasPrefix("TOAST_SOURCE=toastctl[") })
        #expect(!FileManager.default.fileExists(atPath: pwned))
    }

    @Test func anExecThatHangsIsKilledAtItsTimeoutAndTheDaemonStaysResponsive() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-hang-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appending(path: "pid").path
        let (daemon, _) = try Self.daemon(config: """
            [exec]
            timeout = 0.5
            max_running = 2

            [[rule]]
            match = { role = "warning" }
            exec = ["/bin/sh", "-c", "echo $$ > \(pidFile).tmp && mv \(pidFile).tmp \(pidFile) && exec sleep 60"]
            """)
        #expect(try daemon.toastctl("add", "hang", "--role", "warning").status == 0)
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: pidFile) { usleep(10_000) }
        let pid = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(pid > 0)
        // While it hangs, and more commands wait behind the cap, toastd answers at once.
        for index in 0..<5 { #expect(try daemon.toastctl("add", "more \(index)", "--role", "warning").status == 0) }
        let started = ContinuousClock.now
        #expect(try daemon.toastctl("status").status == 0)
        #expect(ContinuousClock.now - started < .seconds(2))
        var gone = false
        for _ in 0..<300 where !gone {
            usleep(10_000)
            gone = kill(pid, 0) != 0
        }
        #expect(gone, "the hung command \(pid) outlived its timeout")
    }

    /// A command that starts background processes and exits (the review
    /// left 50 of 50 running past the timeout and after toastd stopped):
    /// its session goes with it, also a child in a process group of its
    /// own (`set -m` gives each background job one).
    @Test func whatARuleCommandLeavesBehindIsKilledWithIt() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-bg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pids = directory.appending(path: "pids").path
        let (daemon, _) = try Self.daemon(config: """
            [exec]
            timeout = 30

            [[rule]]
            match = { role = "warning" }
            exec = ["/bin/sh", "-c", "for i in $(seq 25); do sleep 300 & echo $! >> \(pids).tmp; done; set -m; for i in $(seq 25); do sleep 300 & echo $! >> \(pids).tmp; done; mv \(pids).tmp \(pids)"]
            """)
        #expect(try daemon.toastctl("add", "background", "--role", "warning").status == 0)
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: pids) { usleep(10_000) }
        let children = try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        #expect(children.count == 50)
        var alive = children
        for _ in 0..<300 where !alive.isEmpty {
            usleep(10_000)
            // A killed child that no one reaped yet is a zombie: gone for this purpose.
            alive = alive.filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
                return !stat.contains(") Z ")
            }
        }
        #expect(alive.isEmpty, "\(alive.count) of 50 background children outlived their command")
    }

    /// Patterns that make a backtracking matcher exponential (`^(a+)+$`)
    /// and glibc's quadratic (`(a|aa)*b`), against 4 KiB messages: the
    /// status round trip measured behind them stays short. (Their cost per
    /// match, against glibc's, is in the benchmarks.)
    @Test func aPathologicalPatternDoesNotStallTheEventLoop() throws {
        let (daemon, _) = try Self.daemon(config: """
            [[rule]]
            match = { message_regex = "^(a+)+$" }
            set = { icon = "a" }

            [[rule]]
            match = { message_regex = "(a|aa)*b" }
            set = { icon = "b" }
            """)
        let message = String(repeating: "a", count: 4_095) + "!"
        let writer = try daemon.connect()
        let prober = try daemon.connect()
        for _ in 0..<5 {
            try writer.send(["op": "add", "toast": ["message": .string(message)]])
        }
        let started = ContinuousClock.now
        #expect(try prober.request(["op": "status"], timeout: 10_000)["ok"] == true)
        let roundTrip = ContinuousClock.now - started
        for _ in 0..<5 {
            let reply = try writer.readReply(timeout: 10_000)
            #expect(reply["result"]?["toast"]?["icon"] == nil)
        }
        print("status round trip behind 5 adds of 4 KiB against 2 pathological patterns: \(roundTrip)")
        #expect(roundTrip < .seconds(2))
    }

    @Test func pauseLevelsLetFailuresThroughAndIsPausedTellsScripts() throws {
        let daemon = try DaemonFixture()
        #expect(try daemon.toastctl("is-paused", "--quiet").status == 1)
        #expect(try daemon.toastctl("pause").stdout == "paused at level 50")
        #expect(try daemon.toastctl("is-paused").stdout == "true", "as dunstctl is-paused")
        #expect(try daemon.toastctl("is-paused").status == 0)
        let info = try Self.added(daemon.toastctl("add", "held", "--json"))
        #expect(info["toast"]?["state"] == "queued")
        let failure = try Self.added(daemon.toastctl("add", "tests failed", "--role", "failure", "--json"))
        #expect(failure["toast"]?["state"] == "shown")
        #expect(try daemon.toastctl("pause", "--level", "100").status == 0)
        let held = try Self.added(daemon.toastctl("add", "another failure", "--role", "failure", "--json"))
        #expect(held["toast"]?["state"] == "queued")
        #expect(try daemon.toastctl("pause", "--toggle").stdout == "resumed")
        #expect(try daemon.toastctl("is-paused").status == 1)
        #expect(try daemon.toastctl("pause", "--level", "0").status == 2)
    }

    /// An inhibitor lasts as long as its connection: kill -9 of the
    /// toastctl that holds it releases it.
    @Test func anInhibitorEndsWithItsConnectionWhateverKillsIt() throws {
        let daemon = try DaemonFixture()
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let pid = try DaemonFixture.spawn(toastctl, ["inhibit", "--reason", "talk", "--", "sleep", "60"], environment: ["TOASTD_SOCKET": daemon.socket])
        var inhibited = false
        for _ in 0..<300 where !inhibited {
            usleep(10_000)
            inhibited = try daemon.toastctl("is-paused", "--quiet").status == 0
        }
        #expect(inhibited)
        let status = try JSONValue.parse(daemon.toastctl("status", "--json").stdout)
        #expect(status["inhibitors"] == 1)
        #expect(status["pausedLevel"] == 0)
        let queued = try Self.added(daemon.toastctl("add", "while presenting", "--json"))
        #expect(queued["toast"]?["state"] == "queued")
        kill(pid, SIGKILL)
        DaemonFixture.wait(pid)
        var released = false
        for _ in 0..<300 where !released {
            usleep(10_000)
            released = try daemon.toastctl("is-paused", "--quiet").status == 1
        }
        #expect(released)
        let list = try daemon.toastctl("list", "--json")
        #expect(list.stdout.contains("\"state\":\"shown\""))

        // With a command, toastctl exits with the command's status and releases.
        let finished = try daemon.toastctl("inhibit", "--", "sh", "-c", "exit 7")
        #expect(finished.status == 7)
        #expect(try daemon.toastctl("is-paused", "--quiet").status == 1)
    }

    @Test func modesAreListedChangedAndMatchedByRules() throws {
        let (daemon, _) = try Self.daemon(config: """
            modes = ["presentation", "work"]

            [[rule]]
            match = { mode = "presentation" }
            drop = true
            """)
        #expect(try daemon.toastctl("mode").stdout == "")
        #expect(try daemon.toastctl("mode", "add", "presentation").stdout == "presentation")
        let dropped = try Self.added(daemon.toastctl("add", "during the talk", "--json"))
        #expect(dropped["dropped"] == true)
        // --wait does not wait for a toast that already ended.
        let waited = try daemon.toastctl("add", "during the talk", "--wait")
        #expect(waited.status == 4)
        #expect(waited.stdout == "dropped")
        #expect(try daemon.toastctl("mode", "toggle", "presentation").stdout == "")
        #expect(try daemon.toastctl("mode", "set", "work", "presentation").stdout == "presentation\nwork")
        #expect(try daemon.toastctl("mode", "set").stdout == "")
        #expect(try daemon.toastctl("mode", "frobnicate", "x").status == 2)
        let shown = try Self.added(daemon.toastctl("add", "after the talk", "--json"))
        #expect(shown["toast"]?["state"] == "shown")
    }

    @Test func modesAndThePauseLevelSurviveARestartButInhibitorsDoNot() throws {
        let state = FileManager.default.temporaryDirectory.appending(path: "toastd-modes-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        do {
            let daemon = try DaemonFixture(arguments: ["--state-dir", state])
            #expect(try daemon.toastctl("pause", "--level", "70").status == 0)
            #expect(try daemon.toastctl("mode", "set", "work", "focus").status == 0)
            let holder = try daemon.connect()
            _ = try holder.request(["op": "inhibit"])
            #expect(try JSONValue.parse(daemon.toastctl("status", "--json").stdout)["inhibitors"] == 1)
        }
        let restarted = try DaemonFixture(arguments: ["--state-dir", state])
        let status = try JSONValue.parse(restarted.toastctl("status", "--json").stdout)
        #expect(status["pausedLevel"] == 70)
        #expect(status["pauseLevel"] == 70)
        #expect(status["modes"] == ["focus", "work"])
        #expect(status["inhibitors"] == 0)
    }

    @Test func dismissAndInvokeLatestNeedNoID() throws {
        let daemon = try DaemonFixture()
        let connection = try daemon.connect()
        let older = try connection.request([
            "op": "add", "toast": ["message": "older", "actions": [["id": "delete", "label": "Delete"], ["id": "keep", "label": "Keep"]]],
        ])
        let olderID = older["result"]?["id"]?.intValue ?? 0
        _ = try connection.request(["op": "add", "toast": ["message": "newest, no action"]])
        // No default action: never a guess (the first one here deletes); the actions are listed.
        let refused = try daemon.toastctl("invoke", "--latest")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("delete (Delete), keep (Keep)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Usage: toastctl invoke"), "the subcommand's usage: \(refused.stderr)")
        // Named after the id, positionally.
        let invoked = try daemon.toastctl("invoke", "\(olderID)", "keep")
        #expect(invoked.status == 0, "\(invoked.stderr)")
        #expect(invoked.stdout == "\(olderID)")
        // With a default, it is the one.
        let opened = try connection.request([
            "op": "add", "toast": ["message": "report", "actions": [["id": "default", "label": "Open"], ["id": "rm", "label": "Delete"]]],
        ])
        #expect(try daemon.toastctl("invoke", "--latest").stdout == "\(opened["result"]?["id"]?.intValue ?? 0)")
        // dismiss with no id: the newest, as dunstctl close.
        let dismissed = try daemon.toastctl("dismiss")
        #expect(dismissed.status == 0, "\(dismissed.stderr)")
        #expect(try daemon.toastctl("dismiss", "--latest").status == 1)
        #expect(try daemon.toastctl("dismiss", "3", "--latest").status == 2)
    }

    /// `toastctl status --follow --format waybar`: a JSON line now, and one per change.
    @Test func waybarFollowPrintsALinePerChange() throws {
        let daemon = try DaemonFixture()
        let output = daemon.directory.appending(path: "waybar.out").path
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let pid = try DaemonFixture.spawn(
            toastctl, ["status", "--follow", "--format", "waybar"], environment: ["TOASTD_SOCKET": daemon.socket], stdout: output
        )
        defer {
            kill(pid, SIGKILL)
            DaemonFixture.wait(pid)
        }
        func lines(atLeast count: Int) -> [JSONValue] {
            var lines: [JSONValue] = []
            for _ in 0..<500 {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                lines = text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
                if lines.count >= count { break }
                usleep(10_000)
            }
            return lines
        }
        #expect(lines(atLeast: 1).last?["alt"] == "none")
        _ = try daemon.toastctl("add", "one", "--duration", "indefinite")
        #expect(lines(atLeast: 2).last?["alt"] == "notification")
        #expect(lines(atLeast: 2).last?["text"] == "1")
        _ = try daemon.toastctl("pause")
        let paused = lines(atLeast: 3).last
        #expect(paused?["alt"] == "dnd-notification")
        #expect(paused?["class"] == "dnd-notification")
        #expect(paused?["tooltip"]?.stringValue?.contains("level 50") == true)
    }

    /// The inhibitor's reason shows; a one-shot waybar line says offline;
    /// inhibit runs its command without toastd; a mode the config does not declare is refused (issue #42).
    @Test func inhibitorReasonsOfflineWaybarAndDeclaredModes() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/toastd-modes-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "modes = [\"presentation\"]\n".write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        let daemon = try DaemonFixture(arguments: ["--config", directory + "/config.toml"])
        let typo = try daemon.toastctl("mode", "add", "presentaton")
        #expect(typo.status == 1 && typo.stderr.contains("unknown mode 'presentaton'") && typo.stderr.contains("presentation"), "\(typo.stderr)")
        #expect(try daemon.toastctl("mode", "add", "presentation").status == 0)
        // Held while `sleep` runs: the reason is in status, its JSON and the waybar tooltip.
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let holder = try DaemonFixture.spawn(toastctl, ["inhibit", "--reason", "screen share", "--", "sleep", "30"], environment: ["TOASTD_SOCKET": daemon.socket])
        defer {
            kill(holder, SIGTERM)
            DaemonFixture.wait(holder)
        }
        var status = JSONValue.null
        for _ in 0..<300 {
            status = try JSONValue.parse(daemon.toastctl("status", "--json").stdout)
            if status["inhibitors"] == 1 { break }
            usleep(10_000)
        }
        #expect(status["inhibitorReasons"] == ["screen share"])
        #expect(try daemon.toastctl("status").stdout.contains("screen share"))
        let waybar = try JSONValue.parse(daemon.toastctl("status", "--format", "waybar").stdout)
        #expect(waybar["alt"] == "inhibited-none" && waybar["tooltip"]?.stringValue?.contains("screen share") == true, "\(waybar)")
        // toastd down: waybar polling once reads offline, and inhibit still runs its command.
        let down = directory + "/nobody.sock"
        let offline = try DaemonFixture.toastctl(["status", "--format", "waybar"], socket: down)
        let offlineLine = try JSONValue.parse(offline.stdout)
        #expect(offline.status == 0 && offlineLine["alt"] == "offline")
        let ran = try DaemonFixture.toastctl(["inhibit", "--", "sh", "-c", "exit 7"], socket: down)
        #expect(ran.status == 7 && ran.stderr.contains("without an inhibitor"), "\(ran.stderr)")
    }
}
