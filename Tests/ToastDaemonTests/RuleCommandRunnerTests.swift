// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import Testing
import ToastCore

@testable import ToastDaemon

/// The runner of rules' commands in process, without a daemon: what a
/// command leaves behind goes with it, a command past its timeout is
/// killed, and the toast reaches it through its environment only.
@Suite("Rule command runner", .serialized)
struct RuleCommandRunnerTests {
    static func runner(timeout: Duration) -> RuleCommandRunner {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let runner = RuleCommandRunner(logger: logger)
        runner.limits = .init(timeout: timeout, maxRunning: 2)
        return runner
    }

    static func run(_ script: String, on runner: RuleCommandRunner, message: String = "m") {
        let record = ToastRecord(id: 7, toast: Toast(message: message), state: .shown, repeatCount: 1, createdAt: 1, presentedAt: 1)
        runner.run(ToastService.RuleRun(argv: ["/bin/sh", "-c", script], record: record))
    }

    static func waitFor(_ path: String) -> String? {
        for _ in 0..<500 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") { return text }
            usleep(10_000)
        }
        return nil
    }

    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z ")
    }

    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "toastd-runner-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func whatACommandStartedEndsWhenItExits() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runner = Self.runner(timeout: .seconds(30))
        Self.run("sleep 300 & echo $! > \(directory)/pid.tmp; set -m; sleep 300 & echo $! >> \(directory)/pid.tmp; mv \(directory)/pid.tmp \(directory)/pid; echo >> \(directory)/pid", on: runner)
        let pids = try #require(Self.waitFor(directory + "/pid")).split(separator: "\n").compactMap { pid_t($0) }
        #expect(pids.count == 2)
        var alive = pids
        for _ in 0..<300 where !alive.isEmpty {
            usleep(10_000)
            alive = alive.filter(Self.isAlive)
        }
        #expect(alive.isEmpty, "\(alive) outlived their command")
    }

    @Test func aCommandPastItsTimeoutIsKilledAndStopEndsWhatRuns() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runner = Self.runner(timeout: .milliseconds(300))
        Self.run("echo $$ > \(directory)/a.tmp; mv \(directory)/a.tmp \(directory)/a; echo >> \(directory)/a; exec sleep 300", on: runner)
        let hungLine = try #require(Self.waitFor(directory + "/a"))
        let hung = try #require(pid_t(hungLine.split(separator: "\n").first ?? ""))
        var gone = false
        for _ in 0..<300 where !gone {
            usleep(10_000)
            gone = !Self.isAlive(hung)
        }
        #expect(gone, "the command outlived its timeout")

        let long = Self.runner(timeout: .seconds(60))
        Self.run("echo $$ > \(directory)/b.tmp; mv \(directory)/b.tmp \(directory)/b; echo >> \(directory)/b; exec sleep 300", on: long)
        let runningLine = try #require(Self.waitFor(directory + "/b"))
        let running = try #require(pid_t(runningLine.split(separator: "\n").first ?? ""))
        long.stop()
        gone = false
        for _ in 0..<300 where !gone {
            usleep(10_000)
            gone = !Self.isAlive(running)
        }
        #expect(gone, "stop left a command running")
    }

    @Test func theToastReachesTheCommandThroughItsEnvironmentOnly() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runner = Self.runner(timeout: .seconds(10))
        Self.run(#"printf '%s\n' "$TOAST_MESSAGE" > \#(directory)/m.tmp; mv \#(directory)/m.tmp \#(directory)/m"#, on: runner, message: "$(touch \(directory)/pwned); `id`")
        #expect(Self.waitFor(directory + "/m") == "$(touch \(directory)/pwned); `id`\n")
        #expect(!FileManager.default.fileExists(atPath: directory + "/pwned"))
    }
}
