// SPDX-License-Identifier: Apache-2.0
import CToastctlFront

/// One connection to toastd, for one request.
struct Connection {
    let fd: Int32

    /// Connected to `path`, and served by this user or root (as the full
    /// toastctl checks: anyone else may have taken over the socket's
    /// directory); nil otherwise, and the full toastctl says why.
    init?(path: [UInt8]) {
        let fd = path.withUnsafeBufferPointer { path in
            path.withMemoryRebound(to: CChar.self) { toastctl_front_connect($0.baseAddress, $0.count) }
        }
        guard fd >= 0 else { return nil }
        let server = toastctl_front_peer_uid(fd)
        guard server == 0 || server == Int64(getuid()) else {
            _ = CToastctlFront.close(fd)
            return nil
        }
        self.fd = fd
    }

    /// Writes all of `bytes`; false when the connection failed first. A
    /// toastd that refused the connection and closed it is an error here,
    /// never a SIGPIPE that kills the front (MSG_NOSIGNAL), as in ToastKit.
    func send(_ bytes: [UInt8]) -> Bool {
        Output.writeAll(bytes) { CToastctlFront.send(fd, $0, $1, Int32(MSG_NOSIGNAL)) }
    }

    enum Received {
        case line([UInt8])
        case closed
        case timedOut
        case tooLong
    }

    /// The first line toastd writes, without its newline, within
    /// `timeout` milliseconds in all and `limit` bytes.
    func readLine(timeout: Int32, limit: Int) -> Received {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Clock.milliseconds() + Int64(timeout)
        while true {
            let left = deadline - Clock.milliseconds()
            guard left > 0, toastctl_front_wait_readable(fd, Int32(left)) > 0 else { return .timedOut }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, toastctl_front_errno() == EINTR { continue }
            guard count > 0 else { return .closed }
            for byte in chunk[0..<count] {
                if byte == 0x0A { return .line(line) }
                guard line.count < limit else { return .tooLong }
                line.append(byte)
            }
        }
    }

    func finish() { _ = CToastctlFront.close(fd) }
}

enum Clock {
    static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
