// SPDX-License-Identifier: Apache-2.0

/// toastd's reply to the add, read as far as the front needs it: whether
/// it is `"ok":true` and, then, the result's `id`. The whole line is checked
/// as JSON (nested at most 64 deep) and must be one object.
enum Reply: Equatable {
    /// `"ok":true`, and the result's `id` as its digits (nil when it has none).
    case added(id: [UInt8]?)
    /// `"ok":false`: toastd refused the add, and nothing was added.
    case refused
    case malformed

    init(line: UnsafeBufferPointer<UInt8>) {
        var reader = Reader(bytes: line)
        guard let reply = reader.reply(), reader.atEnd else {
            self = .malformed
            return
        }
        self = reply
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool {
        var reader = self
        reader.skipSpace()
        return reader.index == bytes.count
    }

    /// The top-level object, remembering `ok` and `result.id`.
    mutating func reply() -> Reply? {
        var ok: Bool?
        var id: [UInt8]?
        let read = members { (reader: inout Reader, key: Range<Int>) -> Bool in
            if reader.equals(key, "ok") {
                if reader.literal("true") { ok = true; return true }
                if reader.literal("false") { ok = false; return true }
                return false
            }
            if reader.equals(key, "result") {
                reader.skipSpace()
                guard reader.peek == UInt8(ascii: "{") else { return reader.value(depth: 1) }
                return reader.members { (inner: inout Reader, key: Range<Int>) -> Bool in
                    guard inner.equals(key, "id") else { return inner.value(depth: 2) }
                    inner.skipSpace()
                    let start = inner.index
                    guard inner.number() else { return false }
                    id = Array(inner.bytes[start..<inner.index])
                    return true
                }
            }
            return reader.value(depth: 1)
        }
        guard read, let ok else { return nil }
        return ok ? .added(id: id.flatMap { Self.isInteger($0) ? $0 : nil }) : .refused
    }

    private static func isInteger(_ digits: [UInt8]) -> Bool {
        digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != text.utf8Start[offset] { return false }
        return true
    }

    mutating func literal(_ text: StaticString) -> Bool {
        skipSpace()
        guard index + text.utf8CodeUnitCount <= bytes.count, equals(index..<(index + text.utf8CodeUnitCount), text) else { return false }
        index += text.utf8CodeUnitCount
        return true
    }

    /// An object's members, each key's raw bytes (between the quotes) handed to `member`.
    mutating func members(_ member: (inout Reader, Range<Int>) -> Bool) -> Bool {
        items(UInt8(ascii: "{"), UInt8(ascii: "}")) { reader in
            reader.skipSpace()
            let start = reader.index + 1
            guard reader.string() else { return false }
            let key = start..<(reader.index - 1)
            reader.skipSpace()
            guard reader.peek == UInt8(ascii: ":") else { return false }
            reader.index += 1
            return member(&reader, key)
        }
    }

    /// `open`, items separated by commas (each read by `item`), `close`.
    private mutating func items(_ open: UInt8, _ close: UInt8, _ item: (inout Reader) -> Bool) -> Bool {
        skipSpace()
        guard peek == open else { return false }
        index += 1
        skipSpace()
        if peek == close {
            index += 1
            return true
        }
        while true {
            guard item(&self) else { return false }
            skipSpace()
            guard let next = peek else { return false }
            index += 1
            if next == close { return true }
            guard next == UInt8(ascii: ",") else { return false }
        }
    }

    /// Any JSON value, skipped.
    mutating func value(depth: Int) -> Bool {
        guard depth <= 64 else { return false }
        skipSpace()
        switch peek {
        case UInt8(ascii: "{")?:
            return members { reader, _ in reader.value(depth: depth + 1) }
        case UInt8(ascii: "[")?:
            return items(UInt8(ascii: "["), UInt8(ascii: "]")) { $0.value(depth: depth + 1) }
        case UInt8(ascii: "\"")?:
            return string()
        case UInt8(ascii: "t")?: return literal("true")
        case UInt8(ascii: "f")?: return literal("false")
        case UInt8(ascii: "n")?: return literal("null")
        default: return number()
        }
    }

    /// A string, its escapes checked; control characters are not allowed raw.
    mutating func string() -> Bool {
        guard peek == UInt8(ascii: "\"") else { return false }
        index += 1
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return true
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let hex = peek, Self.isHexDigit(hex) else { return false }
                        index += 1
                    }
                default:
                    return false
                }
            case 0..<0x20:
                return false
            default:
                continue
            }
        }
        return false
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() -> Bool {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, Self.isDigit(first) else { return false }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() else { return false }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() else { return false }
        }
        return true
    }

    @discardableResult
    private mutating func skipDigits() -> Bool {
        let start = index
        while let byte = peek, Self.isDigit(byte) { index += 1 }
        return index > start
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
