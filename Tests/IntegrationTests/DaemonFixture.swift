// SPDX-License-Identifier: Apache-2.0
import Foundation
import CommandLineSupport
import ToastKit
import ToastCore
import ToastDaemon
import ToastSystem

/// A real toastd on a socket in a fresh temporary directory.
final class DaemonFixture: @unchecked Sendable {
    static let binaries = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binaryDirectory: URL {
        // swift test runs .build/<triple>/debug/<name>.xctest; the products sit beside it.
        let beside = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        return FileManager.default.fileExists(atPath: beside.appending(path: "toastd").path) ? beside : binaries
    }

    let directory: URL
    let socket: String
    let process = Process()
    let log: Pipe = Pipe()
    /// Directories the test made for this daemon (its config file's):
    /// removed with the daemon's own.
    var alsoRemoved: [TemporaryDirectory] = []

    /// `executable`: another toastd than the build's (a link to it elsewhere).
    init(arguments: [String] = [], environment: [String: String] = [:], executable: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "toastd-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A test may name its own socket; the last --socket is the one toastd takes.
        let named = arguments.lastIndex(of: "--socket").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        socket = named ?? directory.appending(path: "toastd.sock").path
        process.executableURL = executable.map { URL(filePath: $0) } ?? Self.binaryDirectory.appending(path: "toastd")
        // A state directory of its own: toastd is durable by default, and
        // a state directory takes one daemon at a time.
        let state = arguments.contains("--ephemeral") || arguments.contains("--state-dir") ? [] : ["--state-dir", stateDirectory]
        process.arguments = ["--socket", socket, "--log-level", "warning"] + state + arguments
        process.standardError = log
        // The tester's own ~/.config/toastd/config.toml must not change what a test sees.
        let isolated = ["XDG_CONFIG_HOME": directory.appending(path: "config").path].merging(environment) { $1 }
        process.environment = ProcessInfo.processInfo.environment.merging(isolated) { $1 }
        try process.run()
        // Up to 20 s for a loaded machine, but no longer than the daemon
        // lives: a test whose toastd is meant to exit does not wait it out.
        SocketFileProbe.waitUntilAccepting(socket, while: { [process] in process.isRunning })
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
        for directory in alsoRemoved { directory.remove() }
    }

    func connect() throws -> ToastConnection { try ToastConnection(path: socket) }

    /// Where this daemon keeps its state (unless the test chose otherwise).
    var stateDirectory: String { directory.appending(path: "state").path }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the real toastctl against this daemon.
    func toastctl(_ arguments: String..., socket: String? = nil) throws -> Outcome {
        try Self.toastctl(arguments, socket: socket ?? self.socket)
    }

    static func toastctl(_ arguments: [String], socket: String) throws -> Outcome {
        try run(binaryDirectory.appending(path: "toastctl").path, arguments, environment: ["TOASTD_SOCKET": socket])
    }

    /// Runs a program to its end and collects its output. It uses
    /// posix_spawn and waitpid rather than Foundation's Process, and files
    /// rather than pipes, so that a child that daemonizes (tmux) and keeps
    /// them open cannot hold the caller waiting.
    static func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Outcome {
        let base = FileManager.default.temporaryDirectory.path + "/toastd-run-\(UUID().uuidString)"
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        let pid = try spawn(executable, arguments, environment: extra, stdout: base + ".out", stderr: base + ".err")
        let status = wait(pid)
        let stdout = (try? Data(contentsOf: URL(filePath: base + ".out"))) ?? Data()
        let stderr = (try? Data(contentsOf: URL(filePath: base + ".err"))) ?? Data()
        return Outcome(
            status: status,
            stdout: String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    /// Starts a program with its output in files and returns its pid; the
    /// caller ends it with `kill` and `wait`.
    static func spawn(
        _ executable: String, _ arguments: [String], environment extra: [String: String] = [:],
        stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }.map { "\($0)=\($1)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The child starts with no signal blocked and default dispositions,
        // whatever this test thread has (Dispatch's threads block some).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        return pid
    }

    /// Waits for a spawned child; its exit status, or 128 + the signal that ended it.
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Copies one of the built binaries, with cp in a child process: a copy
    /// written from this process would hold a writable fd that a child
    /// spawned meanwhile by a parallel test inherits, and exec'ing the copy
    /// would then fail with ETXTBSY ("Text file busy").
    /// (Through cp, so that no descriptor of this process has the copy open
    /// for writing: a child spawned meanwhile would inherit it, and running
    /// the copy would fail with ETXTBSY.)
    static func copyExecutable(_ name: String, to path: String) throws {
        let outcome = try run("/bin/cp", [binaryDirectory.appending(path: name).path, path])
        guard outcome.status == 0 else { throw POSIXError(.EIO) }
    }

    /// A subscriber connection that has read its reply and snapshot. The
    /// snapshot may hold thousands of toasts (a megabyte); under
    /// ThreadSanitizer on a busy machine, 5 s was not always enough.
    func subscribe() throws -> ToastConnection {
        let connection = try connect()
        _ = try connection.request(["op": "subscribe"], timeout: 20_000)
        let snapshot = try connection.readLine(timeout: 20_000)
        precondition(snapshot["event"] == "snapshot")
        return connection
    }

    /// Whether this build has AddressSanitizer (`swift test
    /// --sanitize=address`), and with it the toastd it starts: ASan's
    /// allocator keeps freed memory in quarantine and maps shadow memory,
    /// so toastd's resident size says nothing about toastd's own.
    static let underAddressSanitizer = dlsym(nil, "__asan_init") != nil

    /// The daemon's resident memory, in KiB.
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

enum SocketFileProbe {
    /// Whether a server listens on `path`: connect(2) succeeds from
    /// listen(2) on. A plain connect (toastd's own probe), not a
    /// `ToastConnection`, which also refuses a server of another uid (the
    /// tests' desktop user's toastd).
    static func accepting(_ path: String) -> Bool {
        SocketFile.isAccepting(path)
    }

    /// Waits until a server accepts on `path`, for at most `seconds` and
    /// only while `alive` holds; says whether it does. It stops at the
    /// first connection that succeeds (a `for … where` loop would go on
    /// connecting to the end of its range, and fill the time it meant to wait).
    @discardableResult
    static func waitUntilAccepting(_ path: String, seconds: Double = 20, while alive: () -> Bool = { true }) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !accepting(path) {
            guard alive(), Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }
}

/// A value threads share under an `NSLock`. The tests use this rather than
/// Synchronization's `Mutex`: ThreadSanitizer does not see `Mutex`'s lock
/// on Linux (the prebuilt Synchronization module is not instrumented), so
/// `swift test --sanitize=thread` reported every guarded access as a race.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
