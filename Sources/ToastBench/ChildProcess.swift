// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import ToastSystem
import ToastProtocol
import Glibc
#endif

/// A child process started with posix_spawn: a server under test, or one
/// run of a one-shot client.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let executable: String
    private var exitStatus: Int32?
    /// What the child used, once it has ended (`wait`).
    public private(set) var usage = rusage()

    /// Starts `executable`. `stdin` names a file to read from (default
    /// /dev/null); stdout and stderr go to `output` (default /dev/null).
    /// `environment` adds to (or replaces in) this process's environment.
    public init(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", output: String = "/dev/null",
        environment: [String: String] = [:]
    ) throws {
        var options = Spawn.Options()
        options.searchPath = false
        (options.stdin, options.stdout, options.stderrToStdout) = (stdin, output, true)
        if !environment.isEmpty { options.environment = Spawn.environment(overriding: environment) }
        let pid: pid_t
        switch Spawn.start([executable] + arguments, options) {
        case .success(let started): pid = started
        case .failure(let error): throw BenchError("cannot start \(executable): \(error)")
        }
        self.pid = pid
        self.executable = executable
    }

    /// Waits for the child to end and returns its exit status (128+N for signal N).
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
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
        try run(executable, arguments, stdin: stdin, environment: environment).elapsed
    }

    /// One run of a program: its wall time, and the major page faults it
    /// took and the 512-byte blocks it read from disk doing so (a binary
    /// the page cache let go of is read back at its first run).
    public struct Run {
        public var elapsed: UInt64
        public var majorFaults: Int
        public var blocksRead: Int
    }

    /// Runs a program to its end; throws when it fails.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", environment: [String: String] = [:]
    ) throws -> Run {
        let start = monotonicNanoseconds()
        let child = try ChildProcess(executable, arguments, stdin: stdin, environment: environment)
        let status = child.wait()
        let elapsed = monotonicNanoseconds() - start
        guard status == 0 else { throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)") }
        return Run(elapsed: elapsed, majorFaults: child.usage.ru_majflt, blocksRead: child.usage.ru_inblock)
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

    /// Proportional and anonymous memory, and RSS, in KiB (/proc/PID/smaps_rollup):
    /// PSS counts a shared page by its share, so code the page cache holds
    /// for others is not counted whole; anonymous memory is the process's own.
    public static func smaps(of pid: pid_t) -> (pss: Int, anonymous: Int, rss: Int) {
        var (pss, anonymous, rss) = (0, 0, 0)
        for line in readFile("/proc/\(pid)/smaps_rollup").split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let value = Int(fields[1]) else { continue }
            switch fields[0] {
            case "Pss:": pss = value
            case "Anonymous:": anonymous = value
            case "Rss:": rss = value
            default: break
            }
        }
        return (pss, anonymous, rss)
    }

    /// One mapping's memory in /proc/PID/smaps, in KiB.
    public struct MappingMemory: Equatable, Sendable {
        /// The mapped file, `[heap]`, `[stack]`, or "" for anonymous memory.
        public var path: String
        /// `r-xp` and the like.
        public var permissions: String
        public var rss: Int
        public var pss: Int
        /// File pages mapped with huge pages.
        public var hugeFile: Int
    }

    /// Every mapping of an smaps text (/proc/PID/smaps), in its order:
    /// where a process's memory is, when a row is higher than the runs before.
    public static func mappings(smaps: String) -> [MappingMemory] {
        MappingsText.entries(Array(smaps.utf8), fields: ["Rss:", "Pss:", "FilePmdMapped:"]).map { entry in
            MappingMemory(path: entry.path, permissions: entry.permissions, rss: entry.values[0], pss: entry.values[1], hugeFile: entry.values[2])
        }
    }

    /// The `count` mappings with the most PSS, the most first.
    public static func largest(_ mappings: [MappingMemory], count: Int) -> [MappingMemory] {
        Array(mappings.sorted { $0.pss > $1.pss }.prefix(count))
    }

    /// `smaps(of:)` once the process has settled: its RSS the same over
    /// `quietReads` reads 100 ms apart, or after `limit` seconds. toastd
    /// lets go of its start-up code and maps its hot code with huge pages
    /// on a thread of its own once ready, which can take longer than a
    /// fixed pause on a slow machine.
    public static func settledSmaps(of pid: pid_t, quietReads: Int = 5, limit: Double = 5) -> (pss: Int, anonymous: Int, rss: Int) {
        var readings: [Int] = []
        let reads = Int(limit * 10)
        var latest = smaps(of: pid)
        readings.append(latest.rss)
        while readings.count < reads, !hasSettled(readings, quietReads: quietReads) {
            usleep(100_000)
            latest = smaps(of: pid)
            readings.append(latest.rss)
        }
        return latest
    }

    /// Whether the last `quietReads` readings are equal.
    static func hasSettled(_ readings: [Int], quietReads: Int) -> Bool {
        guard readings.count >= quietReads, let last = readings.last else { return false }
        return readings.suffix(quietReads).allSatisfy { $0 == last }
    }

    /// How many file descriptors the process has open.
    public var openFileDescriptors: Int {
        ProcFile.numberedEntries("/proc/\(pid)/fd")?.count ?? -1
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
