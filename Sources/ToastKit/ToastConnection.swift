// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client connection to toastd: plain sockets, no event loop, so
/// that a one-shot `toastctl add` starts and finishes in a few milliseconds.
///
/// Sendable so that one thread may read it while another writes (as
/// `ToastSession` does, writes under a lock); two readers at once, or two
/// writers, are not safe.
public final class ToastConnection: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case cannotConnect(path: String, reason: String)
        /// The server on the socket runs as another user: whoever it is,
        /// it is not our toastd (PROTOCOL.md, section 1).
        case impostor(path: String, uid: UInt32)
        case closed
        case timedOut
        case io(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .cannotConnect(let path, let reason):
                "cannot connect to toastd at \(path): \(reason)\nstart it with `toastd &`, or `systemctl --user start toastd.socket`"
            case .impostor(let path, let uid):
                "refusing \(path): the server there runs as uid \(uid), not as you (uid \(getuid())) or root; "
                    + "another user may have taken over its directory. Remove the socket's directory and restart toastd"
            case .closed: "toastd closed the connection"
            case .timedOut: "timed out"
            case .io(let message): message
            case .malformed(let message): "toastd sent a malformed line: \(message)"
            }
        }
    }

    public let path: String
    private let fd: Int32

    /// Where toastd is: `explicit`, else `$TOASTD_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/toastd.sock`, else `/tmp/toastd-$UID/toastd.sock`.
    public static func path(explicit: String?) -> String {
        SocketLocation.resolve(explicit: explicit, variable: { getenv($0).map { String(cString: $0) } }, uid: getuid())
    }
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts.
    private var start = 0
    /// Where the search for the next newline goes on: the bytes from
    /// `start` to here hold none. A line of megabytes (a `list` of 60,000
    /// toasts is 41 MB) arrives in thousands of reads, and searching it
    /// from its start after each was 90% of `toastctl list`'s 13 s there.
    private var searched = 0

    public init(path: String) throws(Failure) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotConnect(path: path, reason: String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw .cannotConnect(path: path, reason: "the path is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotConnect(path: path, reason: reason)
        }
        // Before a byte goes out: is the server ours?
        guard let server = Self.peerUID(fd) else {
            close(fd)
            throw .cannotConnect(path: path, reason: "cannot read the server's credentials")
        }
        guard Self.isTrusted(server: server, client: getuid()) else {
            close(fd)
            throw .impostor(path: path, uid: server)
        }
        self.fd = fd
    }

    /// A server may run as the client's own uid, or as root.
    public static func isTrusted(server: UInt32, client: UInt32) -> Bool {
        server == client || server == 0
    }

    /// The uid of the process on the other end (SO_PEERCRED: pid, uid, gid).
    static func peerUID(_ fd: Int32) -> UInt32? {
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials.1
    }

    deinit { close(fd) }

    /// Sends one request line.
    public func send(_ request: JSONValue) throws(Failure) {
        try sendLine(WireEncoder.line(request))
    }

    /// Sends raw bytes; a newline is appended if missing. A daemon that has
    /// closed the connection is an error here, never a SIGPIPE that kills
    /// the calling process (MSG_NOSIGNAL).
    public func sendLine(_ bytes: [UInt8]) throws(Failure) {
        var bytes = bytes
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io("writing to toastd: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Stops sending; toastd answers what it has and, for a non-subscriber, closes.
    public func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Shuts the connection both ways: a read blocked on another thread returns.
    public func shutdownBoth() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// The socket, for a caller that multiplexes it with poll(2).
    public var fileDescriptor: Int32 { fd }

    /// A complete line already received, if any; never blocks.
    public func bufferedLine() -> [UInt8]? {
        let from = max(start, searched)
        let found: Int? = from == buffer.count ? nil : buffer.withUnsafeBytes { bytes in
            memchr(bytes.baseAddress! + from, Int32(UInt8(ascii: "\n")), bytes.count - from).map { bytes.baseAddress!.distance(to: $0) }
        }
        guard let newline = found else {
            searched = buffer.count
            return nil
        }
        let line = Array(buffer[start..<newline])
        start = newline + 1
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 {
            buffer.removeSubrange(..<start)
            start = 0
        }
        searched = start
        return line
    }

    /// Reads once from the socket into the buffer (blocks only if nothing
    /// is ready; call it when poll(2) says readable). Throws `.closed` at EOF.
    public func receive() throws(Failure) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("reading from toastd: \(String(cString: strerror(errno)))")
            }
            if count == 0 { throw .closed }
            buffer.append(contentsOf: chunk[..<count])
            return
        }
    }

    /// Reads the next line, raw. `timeout` in milliseconds; nil waits forever.
    public func readRawLine(timeout: Int? = nil) throws(Failure) -> [UInt8] {
        let deadline = timeout.map { monotonicMilliseconds() + Int64($0) }
        while true {
            if let line = bufferedLine() { return line }
            if let deadline {
                let left = deadline - monotonicMilliseconds()
                guard left > 0 else { throw .timedOut }
                var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pollfd, 1, Int32(clamping: left))
                if ready == 0 { throw .timedOut }
                if ready < 0 && errno != EINTR { throw .io("poll: \(String(cString: strerror(errno)))") }
                if ready <= 0 { continue }
            }
            try receive()
        }
    }

    /// Reads the next line as JSON.
    public func readLine(timeout: Int? = nil) throws(Failure) -> JSONValue {
        let line = try readRawLine(timeout: timeout)
        do {
            return try JSONValue.parse(line)
        } catch {
            throw .malformed(String(decoding: line, as: UTF8.self))
        }
    }

    /// Reads lines until the reply (`"ok"` present); events before it go to `onEvent`.
    public func readReply(timeout: Int? = nil, onEvent: (JSONValue) -> Void = { _ in }) throws(Failure) -> JSONValue {
        while true {
            let value = try readLine(timeout: timeout)
            if value["ok"] != nil { return value }
            onEvent(value)
        }
    }

    /// One request, its reply. If toastd hung up before the request went
    /// out, the line it wrote before closing (a refusal such as
    /// `too_many_connections`) is the reply.
    public func request(_ request: JSONValue, timeout: Int? = nil) throws(Failure) -> JSONValue {
        do {
            try send(request)
        } catch {
            if let refusal = try? readReply(timeout: 1_000), refusal["ok"] == false { return refusal }
            throw error
        }
        return try readReply(timeout: timeout)
    }
}
