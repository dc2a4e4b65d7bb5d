// SPDX-License-Identifier: Apache-2.0
import CommandLineSupport
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// How `list` and `history` print a table: on a terminal, aligned columns
/// under a header, each line cut to the terminal's width with "…"; into a
/// pipe, the same columns separated by tabs, whole, without a header, for
/// `cut` and `awk`. `--json` prints neither.
struct Listing {
    var header: [String]
    var rows: [[String]]

    /// The terminal's width, when stdout is one.
    static var terminalWidth: Int? {
        guard isatty(1) == 1 else { return nil }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return getenv("COLUMNS").flatMap { Int(String(cString: $0)) } ?? 80
    }

    func render(width: Int? = Listing.terminalWidth) -> String {
        guard let width else { return rows.map { $0.joined(separator: "\t") }.joined(separator: "\n") }
        let all = [header] + rows
        let columns = header.count
        // Every column but the last as wide as its widest cell; the last takes what is left.
        let widths = (0..<columns - 1).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            var line = ""
            for column in 0..<columns - 1 { line += row[column].padding(to: widths[column]) + "  " }
            line += row[columns - 1]
            return line.count > width ? String(line.prefix(max(1, width - 1))) + "…" : line
        }.joined(separator: "\n")
    }

    /// "12s", "5m", "3h", "2d": how long ago `instant` (Unix milliseconds) was.
    static func age(since instant: Int64, now: Int64 = wallClockMilliseconds()) -> String {
        let seconds = max(0, (now - instant) / 1000)
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m" }
        if seconds < 86_400 { return "\(seconds / 3600)h" }
        return "\(seconds / 86_400)d"
    }

    /// A toast's text in one cell: "Title — message ×N", made safe for a terminal.
    static func text(_ toast: Toast, repeatCount: Int = 1) -> String {
        let message = toast.message.split(whereSeparator: \.isNewline).joined(separator: " ")
        let text = toast.title.map { "\($0) — \(message)" } ?? message
        return Terminal.sanitize(text) + (repeatCount > 1 ? " ×\(repeatCount)" : "")
    }

    static func source(_ toast: Toast) -> String { toast.source.map(Terminal.sanitize) ?? "-" }
}

extension String {
    fileprivate func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// `history --since`: 1h, 30m, 2d (ago), an ISO time (2026-11-27T10:00,
/// with seconds, Z or an offset; without one it is local time), or Unix
/// milliseconds as before.
enum SinceParser {
    static func milliseconds(_ text: String, now: Int64 = wallClockMilliseconds()) -> Int64? {
        if let value = Int64(text), value >= 0 { return value }
        for (unit, scale) in [("ms", 1 as Int64), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)] where text.hasSuffix(unit) {
            if let count = Int64(text.dropLast(unit.count)), count >= 0, count < 100_000_000 { return now - count * scale }
        }
        return iso(text)
    }

    /// YYYY-MM-DD[(T| )HH:MM[:SS]][Z|±HH:MM]
    static func iso(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var (hour, minute, second) = (0, 0, 0)
        if index < bytes.count, bytes[index] == 0x54 || bytes[index] == 0x20 {
            index += 1
            guard let h = number(2), expect(0x3A), let m = number(2), h < 24, m < 60 else { return nil }
            (hour, minute) = (h, m)
            if expect(0x3A) {
                guard let s = number(2), s < 61 else { return nil }
                second = s
            }
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        parts.tm_isdst = -1
        if index == bytes.count { return Int64(mktime(&parts)) * 1000 }
        var offset = 0
        if expect(0x5A) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let h = number(2) else { return nil }
            _ = expect(0x3A)
            guard let m = number(2) else { return nil }
            offset = sign * (h * 3600 + m * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        return (Int64(timegm(&parts)) - Int64(offset)) * 1000
    }
}
