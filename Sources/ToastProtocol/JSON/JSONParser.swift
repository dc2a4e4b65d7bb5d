// SPDX-License-Identifier: Apache-2.0
/// A strict RFC 8259 parser from UTF-8 bytes straight to `JSONValue`.
///
/// toastd used Foundation's `JSONDecoder` through `Decodable` at first. It
/// was the largest cost on both sides of the socket: a `toastctl add` spent
/// half its instructions decoding one reply, and the daemon spent most of an
/// add in it (docs/BENCHMARKS.md has the profiles). This parser reads one
/// pass over the bytes with no dynamic casts, reports where a line went
/// wrong, and is compiled with the rest of ToastCore, so the fuzzer's
/// coverage reaches it.
///
/// Limits that keep hostile input harmless: nesting deeper than
/// `maximumDepth` is an error (every walk over a `JSONValue` recurses), and
/// numbers outside the range of `Double` are an error, never infinity.
struct JSONParser: ~Copyable {
    static let maximumDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0
    private var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseFailure) -> JSONValue {
        if !bytes.isASCII, String(validating: bytes, as: UTF8.self) == nil {
            throw .invalidUTF8
        }
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.failure("unexpected \(parser.describeCurrent()) after the JSON value")
        }
        return value
    }

    /// The offset of the first byte from `start` on that ends a string's
    /// plain run: a quote, a backslash or a control character (`count` if
    /// none). Eight bytes at a time, as `LineWriter.anyNeedsEscape` looks:
    /// the lowest byte flagged in a word is exact, since a borrow only
    /// carries upwards from a flagged byte. Strings are most of a line; in
    /// the fuzzer a loop per byte made three comparison callbacks a byte,
    /// and `parseString` was their largest caller.
    static func plainRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func below(_ word: UInt64, _ limit: UInt64) -> UInt64 { (word &- ones &* limit) & ~word & highs }
        var offset = start
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
            let hits = below(word, 0x20) | below(word ^ (ones &* 0x22), 1) | below(word ^ (ones &* 0x5C), 1)
            if hits != 0 { return offset + hits.trailingZeroBitCount / 8 }
            offset += 8
        }
        while offset < bytes.count {
            let byte = base[offset]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return offset }
            offset += 1
        }
        return offset
    }

    // MARK: - Values

    mutating func parseValue() throws(JSONParseFailure) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of line, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected \(describeCurrent()), expected a value")
        }
    }

    /// Members are read in the document's order. While their keys ascend
    /// (as in every line toastd writes) each is appended, and none can
    /// repeat an earlier one; after the first that does not, each new key is
    /// looked for among those before it: from the front while there are a
    /// few, in a set once there are many, so a hostile object of a million
    /// members costs what it did with a dictionary. The first repeated key
    /// in the document is the error, as before. Out of order, the members
    /// are sorted once at the end.
    private mutating func parseObject() throws(JSONParseFailure) -> JSONValue {
        try enterContainer()
        index += 1  // {
        var members: [JSONObject.Element] = []
        var ascending = true
        var seen: Set<MemberName>? = nil
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(JSONObject(sorted: members))
        }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeCurrent()), expected a member name in quotes")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure("unexpected \(describeCurrent()), expected ':'") }
            skipWhitespace()
            let value = try parseValue()
            if ascending, let last = members.last?.key, JSONObject.compare(last, key) >= 0 {
                ascending = false
            }
            if !ascending, Self.repeats(key, in: members, seen: &seen) {
                throw JSONParseFailure.invalidJSON("duplicate member \"\(key)\" at byte \(keyOffset)")
            }
            members.append((key, value))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            guard consume(UInt8(ascii: "}")) else { throw failure("unexpected \(describeCurrent()), expected ',' or '}'") }
            depth -= 1
            if !ascending { members.sort { JSONObject.compare($0.key, $1.key) < 0 } }
            return .object(JSONObject(sorted: members))
        }
    }

    /// Whether `key` is among `members` (not yet sorted): searched from
    /// the front up to 16 members, then in `seen`, built once and kept.
    private static func repeats(_ key: String, in members: [JSONObject.Element], seen: inout Set<MemberName>?) -> Bool {
        if seen == nil, members.count < 16 {
            return members.contains { JSONObject.compare($0.key, key) == 0 }
        }
        if seen == nil { seen = Set(members.lazy.map { MemberName(text: $0.key) }) }
        return !seen!.insert(MemberName(text: key)).inserted
    }

    /// A member name hashed and compared by its bytes, as `JSONObject`
    /// compares keys.
    struct MemberName: Hashable {
        let text: String
        static func == (lhs: MemberName, rhs: MemberName) -> Bool { JSONObject.compare(lhs.text, rhs.text) == 0 }
        func hash(into hasher: inout Hasher) { JSONObject.hashBytes(of: text, into: &hasher) }
    }

    private mutating func parseArray() throws(JSONParseFailure) -> JSONValue {
        try enterContainer()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            guard consume(UInt8(ascii: "]")) else { throw failure("unexpected \(describeCurrent()), expected ',' or ']'") }
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func enterContainer() throws(JSONParseFailure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nested deeper than \(Self.maximumDepth) levels") }
    }

    // MARK: - Strings

    /// A string with no escape in it, as the bytes between its quotes (not
    /// copied), the parser after it; nil, the parser where it was, for any
    /// other string (escapes, control characters, no end), which
    /// `parseString` reads or refuses. The add fast path reads keys so.
    mutating func parsePlainString() -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let end = Self.plainRunEnd(bytes, from: index + 1)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        let text = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
        index = end + 1
        return text
    }

    mutating func parseString() throws(JSONParseFailure) -> String {
        let opening = index
        index += 1  // "
        let start = index
        // The common case: no escapes, so the bytes are the string.
        index = Self.plainRunEnd(bytes, from: start)
        if index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte < 0x20 { throw failure("unescaped control character 0x\(hex(byte)) in a string") }
        }
        guard index < bytes.count else {
            throw JSONParseFailure.invalidJSON("unterminated string starting at byte \(opening)")
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw failure("unescaped control character 0x\(hex(byte)) in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw JSONParseFailure.invalidJSON("unterminated string starting at byte \(opening)")
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONParseFailure) {
        index += 1  // backslash
        guard index < bytes.count else { throw failure("unterminated escape") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(letter)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a high surrogate escape without its low surrogate")
                }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a high surrogate escape without its low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a low surrogate escape without its high surrogate")
            }
            utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            index -= 1
            throw failure("unknown escape \\\(describeCurrent())")
        }
    }

    private mutating func parseHex4() throws(JSONParseFailure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("a \\u escape needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    // MARK: - Numbers and literals

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`. Integers that fit
    /// become `.int`, everything else `.double`.
    private mutating func parseNumber() throws(JSONParseFailure) -> JSONValue {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs a digit after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number may not have a leading zero") }
        } else {
            skipDigits()
        }
        var isInteger = true
        var point: Int?
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            point = index
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs a digit in its exponent") }
            skipDigits()
        } else if let value = shortDecimal(from: start, point: point) {
            return value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let number = Double(text), number.isFinite else {
            throw JSONParseFailure.invalidJSON("number \(text.prefix(32)) at byte \(start) is out of range")
        }
        return .double(number)
    }

    /// The number from `start` to `index`, without an exponent, when it has
    /// at most 15 digits: computed from its digits, without the `String`
    /// and the general conversion (durations and progress in every add).
    /// Such digits are an integer below 2⁵³ and the divisor a power of ten
    /// below 10²³, both exact doubles, so the one division rounds correctly,
    /// as `Double(String)` does: the same value (Clinger's fast path).
    private func shortDecimal(from start: Int, point: Int?) -> JSONValue? {
        let negative = bytes[start] == UInt8(ascii: "-")
        let first = negative ? start + 1 : start
        let digitCount = index - first - (point == nil ? 0 : 1)
        guard digitCount <= 15 else { return nil }
        var digits: Int64 = 0
        for at in first..<index where bytes[at] != UInt8(ascii: ".") {
            digits = digits &* 10 &+ Int64(bytes[at] &- UInt8(ascii: "0"))
        }
        guard let point else { return .int(negative ? -digits : digits) }
        let value = Double(digits) / Self.powersOfTen[index - point]
        return .double(negative ? -value : value)
    }

    /// 10⁰ … 10¹⁵, exactly.
    private static let powersOfTen: [Double] = (0...15).map { exponent in
        (0..<exponent).reduce(1.0) { product, _ in product * 10 }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseFailure) {
        let count = literal.utf8CodeUnitCount
        let matches = index + count <= bytes.count
            && literal.withUTF8Buffer { expected in
                expected.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<index + count]))
            }
        guard matches else { throw failure("unexpected \(describeCurrent()), expected a value") }
        index += count
    }

    // MARK: - Helpers

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of line" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex(byte))"
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
    }

    private func failure(_ message: String) -> JSONParseFailure {
        .invalidJSON("\(message) at byte \(index)")
    }
}
