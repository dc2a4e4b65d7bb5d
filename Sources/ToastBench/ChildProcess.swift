#if canImport(Glibc)
import ToastProtocol
import Glibc
#endif

/// A child process started with posix_spawn: a server under test, or one
/// run of a one-shot client.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let executable: String
    private var exitStatus: Int32?

    /// Starts `executable`. `stdin` names a file to read from (default
    /// /dev/null); stdout and stderr go to `output` (default /dev/null).
    /// `environment` adds to (or replaces in) this process's environment.
    public init(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", output: String = "/dev/null",
        environment: [String: String] = [:]
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Children start with no blocked signals, whatever this process blocks.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status: Int32
        if environment.isEmpty {
            status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        } else {
            var inherited: [String] = []
            var entry = environ
            while let pointer = entry.pointee {
                let line = String(cString: pointer)
                if !environment.keys.contains(where: { line.hasPrefix($0 + "=") }) { inherited.append(line) }
                entry += 1
            }
            let envp = (inherited + environment.map { "\($0)=\($1)" }).map { strdup($0) } + [nil]
            defer { envp.forEach { free($0) } }
            status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard status == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(status)))") }
        self.pid = pid
        self.executable = executable
    }

    /// Waits for the child to end and returns its exit status (128+N for signal N).
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = code
        return code
    }

    public func terminate() {
        guard exitStatus == nil else { return }
        kill(pid, SIGTERM)
        wait()
    }

    deinit { terminate() }

    /// Runs a program to its end and returns its wall time in nanoseconds.
    public static func time(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", environment: [String: String] = [:]
    ) throws -> UInt64 {
        let start = monotonicNanoseconds()
        let child = try ChildProcess(executable, arguments, stdin: stdin, environment: environment)
        let status = child.wait()
        let elapsed = monotonicNanoseconds() - start
        guard status == 0 else { throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)") }
        return elapsed
    }

    /// Resident set size and its peak, in KiB, from /proc.
    public var memory: (rss: Int, peak: Int) { Self.memory(of: pid) }

    public static func memory(of pid: pid_t) -> (rss: Int, peak: Int) {
        var rss = 0
        var peak = 0
        for line in readFile("/proc/\(pid)/status").split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let value = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { rss = value }
            if fields[0] == "VmHWM:" { peak = value }
        }
        return (rss, peak)
    }

    /// How many file descriptors the process has open.
    public var openFileDescriptors: Int {
        guard let directory = opendir("/proc/\(pid)/fd") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }
}

public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A whole small file as text ("" if it cannot be read).
public func readFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

public func writeFile(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw BenchError("cannot write \(path)") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written > 0 else { throw BenchError("cannot write \(path)") }
        offset += written
    }
}
