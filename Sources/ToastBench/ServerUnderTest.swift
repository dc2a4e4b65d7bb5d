// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import ToastKit
import ToastSystem

/// A server a benchmark talks to on a Unix socket in a private directory:
/// toastd itself, or one of the echo baselines.
public final class ServerUnderTest: @unchecked Sendable {
    public let name: String
    public let socket: String
    public let process: ChildProcess
    /// The server's socket, log and state: removed, state and all, at `stop`.
    private let temporary: TemporaryDirectory
    public var directory: String { temporary.path }

    /// Starts `executable` with `arguments`, where "{socket}" stands for the
    /// socket path and "{state}" for a state directory of its own, and waits
    /// until the socket accepts connections.
    public init(name: String, executable: String, arguments: [String], environment: [String: String] = [:]) throws {
        let temporary = try TemporaryDirectory(prefix: "toast-bench")
        self.temporary = temporary
        let socket = temporary.path + "/s.sock"
        self.socket = socket
        self.name = name
        let state = temporary.path + "/state"
        do {
            process = try ChildProcess(
                executable, arguments.map { $0 == "{socket}" ? socket : $0 == "{state}" ? state : $0 },
                output: temporary.path + "/log", environment: environment
            )
        } catch {
            // Not yet initialized, so no deinit to remove it.
            temporary.remove()
            throw error
        }
        // Up to a minute: a restart reads its state back (100,000 toasts, in a debug build, take seconds).
        for _ in 0..<6_000 {
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
        temporary.remove()
    }

    deinit { stop() }
}

/// A connected Unix stream socket with plain blocking reads and writes,
/// for load generators that must cost as little as possible: it connects
/// through `ToastConnection`, then reads and writes raw bytes (a hostile
/// client's half lines included) and hands out lines in batches.
public final class LineSocket: @unchecked Sendable {
    private var connection: ToastConnection?
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []

    public var fd: Int32 { connection?.fileDescriptor ?? -1 }

    public init(path: String) throws {
        do {
            connection = try ToastConnection(path: path)
        } catch {
            throw BenchError("\(error)")
        }
    }

    /// Closes the socket now (it also closes when the object goes).
    public func close() { connection = nil }

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

    /// Where the first `needle` at or after `from` ends, if there is one.
    public func end(of needle: [UInt8], from: Index? = nil) -> Index? {
        var index = from ?? startIndex
        while index + needle.count <= endIndex {
            if self[index] == needle[0], self[index..<index + needle.count].elementsEqual(needle) {
                return index + needle.count
            }
            index += 1
        }
        return nil
    }

    /// Whether the line contains `needle` (ASCII).
    public func contains(_ needle: [UInt8]) -> Bool { end(of: needle) != nil }

    /// The decimal number right after the first `needle` that a digit
    /// follows, if any.
    public func integer(after needle: [UInt8]) -> Int? {
        func isDigit(_ index: Index) -> Bool {
            index < endIndex && self[index] >= UInt8(ascii: "0") && self[index] <= UInt8(ascii: "9")
        }
        var from = startIndex
        while let start = end(of: needle, from: from) {
            guard isDigit(start) else {
                from = start
                continue
            }
            var value = 0
            var cursor = start
            while isDigit(cursor) {
                value = value * 10 + Int(self[cursor] - UInt8(ascii: "0"))
                cursor += 1
            }
            return value
        }
        return nil
    }

    /// The text up to the next `"` after the first `needle`, if any.
    public func text(after needle: [UInt8]) -> String? {
        guard let start = end(of: needle) else { return nil }
        let stop = self[start...].firstIndex(of: UInt8(ascii: "\"")) ?? endIndex
        return String(decoding: self[start..<stop], as: UTF8.self)
    }
}
