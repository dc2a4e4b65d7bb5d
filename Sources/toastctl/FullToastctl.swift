// SPDX-License-Identifier: Apache-2.0
import CToastctlFront

/// The full toastctl (Sources/toastctl-full): every command, every option,
/// `--help`, the man page's and the completions' source. The front runs it
/// in its own place, with the same arguments, for everything it does not
/// do itself: it is `toastctl-full` beside the front (a build), else
/// `../libexec/toastd/toastctl-full` from the front's directory (an install).
enum FullToastctl {
    /// Replaces this process with the full toastctl; returns only when it cannot.
    static func run(arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Never {
        var front = [UInt8](repeating: 0, count: 4096)
        let length = front.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        }
        var directory: [UInt8] = []
        if length > 0 {
            let path = front[0..<length]
            if let slash = path.lastIndex(of: UInt8(ascii: "/")) { directory = Array(path[0..<slash]) }
        }
        for candidate in ["/toastctl-full" as StaticString, "/../libexec/toastd/toastctl-full"] {
            var path = directory
            path.append(contentsOf: candidate.bytes)
            path.append(0)
            _ = path.withUnsafeBufferPointer { path in
                path.withMemoryRebound(to: CChar.self) { execv($0.baseAddress!, arguments) }
            }
        }
        Output.error("toastctl: cannot run toastctl-full (beside toastctl, or in ../libexec/toastd/): ", strerror(toastctl_front_errno()))
        exit(127)
    }
}

enum Output {
    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        _ = writeAll(bytes) { CToastctlFront.write(fd, $0, $1) }
    }

    /// All of `bytes` through `write` (a pointer and a count, then what it
    /// wrote or -1), again after EINTR; false when a write fails first.
    static func writeAll(_ bytes: [UInt8], _ write: (UnsafeRawPointer, Int) -> Int) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, toastctl_front_errno() == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// A message on stderr, then a newline.
    static func error(_ message: StaticString, _ detail: UnsafePointer<CChar>? = nil) {
        var line = Array(message.bytes)
        if let detail { line.append(contentsOf: Word(cString: detail).bytes) }
        line.append(0x0A)
        write(2, line)
    }
}
