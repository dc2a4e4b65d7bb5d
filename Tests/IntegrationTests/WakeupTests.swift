// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastKit

/// An idle toastd does not wake up (issue #44): every thread's context
/// switches, read from /proc, stay the same over a few seconds at rest,
/// both fresh and after some activity (once its status line went out). A
/// timer added later that repeats at rest fails this test.
@Suite("toastd at rest", .serialized)
struct WakeupTests {
    /// The context switches of every thread of `pid`.
    static func switches(_ pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            return total + status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
                .compactMap { $0.split(separator: "\t").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.reduce(0, +)
        }
    }

    /// The threads that woke in `seconds`, by name, with how often.
    static func wakeups(_ pid: pid_t, over seconds: Double) -> (total: Int, threads: [String]) {
        func perThread() -> [String: Int] {
            var result: [String: Int] = [:]
            for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
                let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
                result["\(name)#\(task)"] = switches(pid, task: task)
            }
            return result
        }
        let before = perThread()
        usleep(UInt32(seconds * 1_000_000))
        let after = perThread()
        var woke: [String] = []
        var total = 0
        for (thread, count) in after {
            let delta = count - (before[thread] ?? count)
            if delta > 0 { woke.append("\(thread): \(delta)") }
            total += delta
        }
        return (total, woke)
    }

    static func switches(_ pid: pid_t, task: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
            .compactMap { $0.split(separator: "\t").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.reduce(0, +)
    }

    @Test func anIdleToastdDoesNotWakeUp() throws {
        let daemon = try DaemonFixture()
        let pid = daemon.process.processIdentifier
        // Fresh: once start-up's one-shot timers are done (the first
        // checkpoint in a quiet moment), nothing is armed.
        usleep(2_500_000)
        let fresh = Self.wakeups(pid, over: 3)
        #expect(fresh.total == 0, "woke up at rest: \(fresh.threads)")
        // Some activity, then rest: the status line goes out within a second, a
        // checkpoint follows in a quiet moment, then silence.
        let id = try daemon.toastctl("add", "busy", "--duration", "indefinite").stdout
        _ = try daemon.toastctl("dismiss", id)
        _ = try daemon.toastctl("status")
        usleep(2_500_000)
        let after = Self.wakeups(pid, over: 3)
        #expect(after.total == 0, "woke up at rest after activity: \(after.threads)")
    }
}
