#if canImport(Glibc)
import Glibc
#endif

/// A server a benchmark talks to on a Unix socket in a private directory:
/// toastd itself, or one of the echo baselines.
public final class ServerUnderTest: @unchecked Sendable {
    public let name: String
    public let socket: String
    public let process: ChildProcess
    public let directory: String

    /// Starts `executable` with `arguments`, where "{socket}" stands for the
    /// socket path, and waits until the socket accepts connections.
    public init(name: String, executable: String, arguments: [String]) throws {
        var template = Array("/tmp/toast-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        directory = String(cString: made)
        socket = directory + "/s.sock"
        self.name = name
        let socket = socket
        process = try ChildProcess(
            executable, arguments.map { $0 == "{socket}" ? socket : $0 }, output: directory + "/log"
        )
        for _ in 0..<500 {
            if let probe = try? LineSocket(path: socket) {
                probe.close()
                usleep(20_000)  // let the server forget the probe
                return
            }
            usleep(10_000)
        }
        throw BenchError("\(name) did not start listening on \(socket): \(readFile(directory + "/log"))")
    }

    public var log: String { readFile(directory + "/log") }

    public func stop() {
        process.terminate()
        unlink(socket)
        unlink(directory + "/log")
        rmdir(directory)
    }

    deinit { stop() }
}

/// A connected Unix stream socket with plain blocking reads and writes,
/// for load generators that must cost as little as possible.
public final class LineSocket: @unchecked Sendable {
    public private(set) var fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []

    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw BenchError("connect \(path): \(reason)")
        }
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }

    /// Writes everything, or throws (a peer that hung up included: no SIGPIPE).
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw BenchError("send: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    public func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Reads what is there (blocking until something is, or `timeout` ms
    /// pass) and hands each complete line, without its newline, to `line`.
    /// Returns false at end of stream or timeout.
    public func readLines(timeout: Int32 = -1, _ line: (ArraySlice<UInt8>) -> Void) -> Bool {
        if timeout >= 0 {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, timeout) <= 0 { return false }
        }
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else { return false }
        var start = 0
        for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
            if pending.isEmpty {
                line(buffer[start..<index])
            } else {
                pending += buffer[start..<index]
                line(pending[...])
                pending.removeAll(keepingCapacity: true)
            }
            start = index + 1
        }
        if start < count { pending += buffer[start..<count] }
        return true
    }

    /// Reads one line (for request/reply exchanges).
    public func readLine(timeout: Int32 = 10_000) throws -> [UInt8] {
        var result: [UInt8]?
        while result == nil {
            guard readLines(timeout: timeout, { line in if result == nil { result = Array(line) } }) else {
                throw BenchError("no line within \(timeout) ms")
            }
        }
        return result!
    }
}

extension ArraySlice<UInt8> {
    /// Whether the line starts with `prefix` (ASCII).
    public func starts(with prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { expected in
            count >= expected.count && zip(self, expected).allSatisfy { $0 == $1 }
        }
    }

    /// The decimal number right after the first `needle` that a digit
    /// follows, if any.
    public func integer(after needle: [UInt8]) -> Int? {
        var index = startIndex
        while index + needle.count < endIndex {
            if self[index] == needle[0], self[index..<index + needle.count].elementsEqual(needle) {
                var cursor = index + needle.count
                guard self[cursor] >= UInt8(ascii: "0") && self[cursor] <= UInt8(ascii: "9") else {
                    index = cursor
                    continue
                }
                var value = 0
                while cursor < endIndex, self[cursor] >= UInt8(ascii: "0"), self[cursor] <= UInt8(ascii: "9") {
                    value = value * 10 + Int(self[cursor] - UInt8(ascii: "0"))
                    cursor += 1
                }
                return value
            }
            index += 1
        }
        return nil
    }

    /// Whether the line contains `needle` (ASCII).
    public func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        var index = startIndex
        let last = endIndex - needle.count
        while index <= last {
            if self[index] == needle[0] && self[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
