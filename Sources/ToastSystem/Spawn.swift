// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Starting a child process, written once for toastd's rule commands,
/// `toastctl run` and the benchmarks' servers: posix_spawn(3) with no
/// blocked signal in the child (whatever the parent blocks to wait for its
/// own), and, as asked, a session of its own, default dispositions for
/// some signals, its standard streams on files, and its environment.
public enum Spawn {
    public struct Options: Sendable {
        /// Look the program up in PATH (posix_spawnp).
        public var searchPath = true
        /// Lead a session (and a process group) of its own.
        public var newSession = false
        /// Signals whose disposition is reset to the default in the child.
        public var defaultSignals: [Int32] = []
        /// Files for fd 0, 1 and 2 (nil: inherited); `stderrToStdout` sends 2 where 1 goes.
        public var stdin: String?
        public var stdout: String?
        public var stderr: String?
        public var stderrToStdout = false
        /// Descriptors of this process for fd 0 and 1 (a pipe's ends), over the files above.
        public var stdinDescriptor: Int32?
        public var stdoutDescriptor: Int32?
        /// The whole environment ("NAME=value"); nil inherits this process's.
        public var environment: [String]?

        public init() {}
    }

    /// The child's pid, or the errno that kept it from starting.
    public static func start(_ argv: [String], _ options: Options = Options()) -> Result<pid_t, SpawnError> {
        guard let program = argv.first else { return .failure(SpawnError(code: EINVAL)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin = options.stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0) }
        if let stdout = options.stdout { posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o600) }
        if let fd = options.stdinDescriptor { posix_spawn_file_actions_adddup2(&actions, fd, 0) }
        if let fd = options.stdoutDescriptor { posix_spawn_file_actions_adddup2(&actions, fd, 1) }
        if options.stderrToStdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else if let stderr = options.stderr {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK)
        if !options.defaultSignals.isEmpty {
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in options.defaultSignals { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            flags |= Int32(POSIX_SPAWN_SETSIGDEF)
        }
        // glibc's POSIX_SPAWN_SETSID (2.26 and later), which Swift's Glibc module does not export.
        if options.newSession { flags |= 0x80 }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status: Int32
        if let environment = options.environment {
            let envp = environment.map { strdup($0) } + [nil]
            defer { envp.forEach { free($0) } }
            status =
                options.searchPath
                ? posix_spawnp(&pid, program, &actions, &attributes, arguments, envp)
                : posix_spawn(&pid, program, &actions, &attributes, arguments, envp)
        } else {
            status =
                options.searchPath
                ? posix_spawnp(&pid, program, &actions, &attributes, arguments, environ)
                : posix_spawn(&pid, program, &actions, &attributes, arguments, environ)
        }
        return status == 0 ? .success(pid) : .failure(SpawnError(code: status))
    }

    /// This process's environment, with `overrides` added or replacing
    /// (and the variables `dropping` says to leave out).
    public static func environment(overriding overrides: [String: String] = [:], dropping: (String) -> Bool = { _ in false }) -> [String] {
        var inherited: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let line = String(cString: pointer)
            let name = line.prefix { $0 != "=" }
            if overrides[String(name)] == nil && !dropping(line) { inherited.append(line) }
            entry += 1
        }
        return inherited + overrides.map { "\($0)=\($1)" }
    }
}

/// Why a child did not start: its errno.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var description: String { String(cString: strerror(code)) }
}
