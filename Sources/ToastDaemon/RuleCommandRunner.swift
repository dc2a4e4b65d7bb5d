// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import Dispatch
import Logging
import Synchronization
import ToastConfig
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// Runs the commands of rules' `exec` (a sound, a script) when their toast
/// is presented: off the event loop, at most `maxRunning` at once (the
/// rest wait their turn, up to `maxWaiting`). A failure is logged, never
/// fatal.
///
/// Each command leads a session of its own (`setsid`), and whatever it
/// started goes with it: when the command exits, when it outlives
/// `timeout`, and when toastd stops, every process of its session (its
/// process group, and any group it made inside the session) is killed. A
/// command that forked into the background and exited left that child
/// running past its timeout and outside `max_running` (50 of 50 in the
/// review, issue #38). Only a process that starts a session of its own
/// (`setsid`) leaves the session; under systemd the unit's cgroup still
/// holds it, and `systemctl --user stop toastd` ends it.
///
/// The toast reaches the command only through its environment (`TOAST_ID`,
/// `TOAST_TITLE`, `TOAST_MESSAGE`, ...): argv is the rule's, as written,
/// and no shell sees the toast's text.
final class RuleCommandRunner: Sendable {
    struct Limits: Sendable, Hashable {
        var timeout: Duration
        var maxRunning: Int
        var maxWaiting = 256

        /// The configuration file's defaults (`[exec]`).
        static let defaults = Limits(timeout: ToastdConfig().execTimeout, maxRunning: ToastdConfig().execMaxRunning)
    }

    private struct State {
        var limits = Limits.defaults
        var running = 0
        var waiting: [ToastService.RuleRun] = []
        /// The process groups running now, for `stop`.
        var groups: Set<pid_t> = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    var limits: Limits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    func run(_ command: ToastService.RuleRun) {
        let start: Bool = state.withLock { state in
            if state.stopped { return false }
            if state.running < state.limits.maxRunning {
                state.running += 1
                return true
            }
            if state.waiting.count < state.limits.maxWaiting {
                state.waiting.append(command)
            } else {
                logger.warning(
                    "a rule's command was skipped: too many are waiting",
                    metadata: ["command": "\(command.argv[0])", "toast_id": "\(command.record.id)"]
                )
            }
            return false
        }
        guard start else { return }
        let thread = DispatchQueue.global()
        thread.async { [self] in
            var next: ToastService.RuleRun? = command
            while let current = next {
                execute(current)
                next = state.withLock { state in
                    if state.waiting.isEmpty {
                        state.running -= 1
                        return nil
                    }
                    return state.waiting.removeFirst()
                }
            }
        }
    }

    /// At shutdown: nothing new starts, and what runs is killed (systemd
    /// would kill the service's cgroup anyway; a plain run must not leave
    /// commands behind).
    func stop() {
        let groups = state.withLock { state in
            state.stopped = true
            state.waiting = []
            return state.groups
        }
        for group in groups { Self.endSession(group) }
    }

    /// Kills every process of session `id`: its leader's process group at
    /// once, then any other group inside the session, found in /proc.
    static func endSession(_ id: pid_t) {
        kill(-id, SIGKILL)
        for _ in 0..<3 {
            let members = sessionMembers(id)
            if members.isEmpty { return }
            for member in members { kill(member, SIGKILL) }
        }
    }

    /// The live processes of session `id`, zombies left out.
    static func sessionMembers(_ id: pid_t) -> [pid_t] {
        var members: [pid_t] = []
        for name in ProcFile.numberedEntries("/proc") ?? [] {
            guard let pid = pid_t(name), pid != id, let stat = ProcFile.read("/proc/\(name)/stat") else { continue }
            // pid (comm) state ppid pgrp session ...: comm may hold anything, so read after its last ')'.
            guard let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 3, fields[0] != "Z", pid_t(fields[3]) == id { members.append(pid) }
        }
        return members
    }

    // MARK: - One command

    private func execute(_ command: ToastService.RuleRun) {
        let timeout = state.withLock { $0.limits.timeout }
        let metadata: Logger.Metadata = ["command": "\(command.argv[0])", "toast_id": "\(command.record.id)"]
        guard let pid = spawn(command.argv, environment: Self.environment(for: command.record)) else {
            logger.warning("a rule's command could not start", metadata: metadata.merging(["error": "\(String(cString: strerror(errno)))"]) { $1 })
            return
        }
        let stopped = state.withLock { state in
            state.groups.insert(pid)
            return state.stopped
        }
        if stopped { Self.endSession(pid) }
        defer { state.withLock { _ = $0.groups.remove(pid) } }
        // Exited but not reaped yet, so that its pid (the session's id) is
        // not handed to another process while the session is ended.
        let exited = waitForExit(of: pid, timeout: timeout)
        Self.endSession(pid)
        let status = Self.reap(pid)
        if !exited {
            logger.warning("a rule's command ran past its timeout and was killed", metadata: metadata.merging(["timeout": "\(timeout)"]) { $1 })
        } else if status != 0 {
            logger.notice("a rule's command failed", metadata: metadata.merging(["status": "\(Self.describe(status))"]) { $1 })
        } else {
            logger.debug("a rule's command ran", metadata: metadata)
        }
    }

    /// The toast as environment variables, over toastd's own environment
    /// (less any TOAST_ variables of its own).
    static func environment(for record: ToastRecord) -> [String] {
        let toast = record.toast
        var variables = [
            "TOAST_ID=\(record.id)",
            "TOAST_MESSAGE=\(toast.message)",
            "TOAST_ROLE=\(toast.role.rawValue)",
            "TOAST_SCENE=\(toast.scene)",
            "TOAST_ALIGNMENT=\(toast.alignment.rawValue)",
            "TOAST_STATE=\(record.state.rawValue)",
        ]
        if let title = toast.title { variables.append("TOAST_TITLE=\(title)") }
        if let source = toast.source { variables.append("TOAST_SOURCE=\(source)") }
        if let icon = toast.icon { variables.append("TOAST_ICON=\(icon)") }
        if let reuseID = toast.reuseID { variables.append("TOAST_REUSE_ID=\(reuseID)") }
        if let level = toast.level { variables.append("TOAST_LEVEL=\(level)") }
        return Spawn.environment(dropping: { $0.hasPrefix("TOAST_") }) + variables
    }

    /// Starts argv[0] (searched in PATH) in a session of its own, with
    /// stdin, stdout and stderr on /dev/null, default signal handling and
    /// no blocked signals.
    private func spawn(_ argv: [String], environment: [String]) -> pid_t? {
        var options = Spawn.Options()
        options.newSession = true
        options.defaultSignals = [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD]
        (options.stdin, options.stdout, options.stderr) = ("/dev/null", "/dev/null", "/dev/null")
        options.environment = environment
        switch Spawn.start(argv, options) {
        case .success(let pid): return pid
        case .failure(let error):
            errno = error.code
            return nil
        }
    }

    /// Waits for the child to exit, without reaping it (`WNOWAIT`); false
    /// when the timeout passed first. It polls (every 2 ms at first, then
    /// up to every 50 ms): these are a few short commands on a thread of
    /// their own.
    private func waitForExit(of pid: pid_t, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var pause: UInt32 = 2_000
        while true {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if result == 0 && info._sifields._sigchld.si_pid == pid { return true }
            if result < 0 && errno != EINTR { return true }
            guard ContinuousClock.now < deadline else { return false }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
    }

    /// The child's wait status, once it has exited (-1 if it cannot be had).
    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, 0)
            if result == pid { return status }
            if result < 0 && errno == EINTR { continue }
            return -1
        }
    }

    private static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        return signal == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(signal)"
    }
}
