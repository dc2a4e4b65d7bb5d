// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

/// The one way toastd's programs start a child (rule commands, `toastctl
/// run`, the benchmarks' servers), against real processes.
@Suite("Spawning")
struct SpawnTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "toastd-spawn-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    /// A new session: the child leads it (its session id is its pid), its
    /// output goes to the file named, its environment is the one given.
    @Test func aChildInASessionOfItsOwnWithItsStreamsAndEnvironment() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = Spawn.Options()
        options.newSession = true
        options.stdout = directory + "/out"
        options.stderrToStdout = true
        options.environment = Spawn.environment(overriding: ["TOAST_PROBE": "a b;c"], dropping: { $0.hasPrefix("HOME=") })
        let pid = try Spawn.start(["/bin/sh", "-c", #"echo "$TOAST_PROBE|${HOME:-none}|$(ps -o sid= -p $$ | tr -d ' ')" >&2"#], options).get()
        #expect(Self.wait(pid) == 0)
        let out = try String(contentsOfFile: directory + "/out", encoding: .utf8)
        #expect(out == "a b;c|none|\(pid)\n")
    }

    @Test func aProgramThatIsNotThereIsAnErrorWithItsErrno() {
        guard case .failure(let error) = Spawn.start(["/nonexistent/program"]) else {
            Issue.record("a missing program started")
            return
        }
        #expect(error.code == ENOENT)
    }

    /// Signals blocked in the parent (as toastctl run blocks them to wait)
    /// are not blocked in the child.
    @Test func theChildStartsWithNoBlockedSignal() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let pid = try Spawn.start(["/bin/sh", "-c", "kill -TERM $$; sleep 5"]).get()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        #expect(status & 0x7f == SIGTERM, "the child's SIGTERM was blocked")
    }
}
