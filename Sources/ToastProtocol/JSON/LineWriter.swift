// SPDX-License-Identifier: Apache-2.0
/// The bytes of one line, written through a pointer: the direct encoders'
/// (`WireEncoder.eventLine`, `replyLine`, `writeToast`) output.
///
/// They wrote into an `[UInt8]` a byte or a key at a time, and each append
/// checked the array's uniqueness and capacity: about 10,000 instructions
/// to encode one toast (callgrind over the ingest run), and toastd encodes
/// a toast for every reply, every event someone is sent, and every toast it
/// stores. Here a write is a bounds check and a copy. The line starts in
/// scratch memory on the stack and moves to the heap only if it outgrows
/// it; `line` hands back exactly the bytes written.
struct LineWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Whether `base` was allocated here (else it is the caller's scratch).
    private var owned = false

    private init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        base = scratch.baseAddress!
        capacity = scratch.count
    }

    deinit {
        if owned { base.deallocate() }
    }

    /// Runs `body` with a writer and returns what it wrote.
    static func line(scratch: Int = 1_024, _ body: (inout LineWriter) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratch) { buffer in
            var writer = LineWriter(scratch: buffer)
            body(&writer)
            return Array(UnsafeBufferPointer(start: writer.base, count: writer.count))
        }
    }

    /// Runs `write` with a writer, then `body` with what it wrote, still in
    /// place: for a caller that copies the bytes anyway (SQLite binding
    /// them), so the line is never made into an array.
    static func withLine<Result>(
        scratch: Int = 1_024, _ write: (inout LineWriter) -> Void, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratch) { buffer in
            var writer = LineWriter(scratch: buffer)
            write(&writer)
            return try body(UnsafeBufferPointer(start: writer.base, count: writer.count))
        }
    }

    /// Where the next `count` bytes go; the caller then adds them to `count`.
    @inline(__always)
    private mutating func room(_ needed: Int) -> UnsafeMutablePointer<UInt8> {
        if count + needed > capacity { grow(to: count + needed) }
        return base + count
    }

    private mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        if owned { base.deallocate() }
        base = newBase
        capacity = newCapacity
        owned = true
    }

    @inline(__always)
    mutating func byte(_ byte: UInt8) {
        room(1).pointee = byte
        count += 1
    }

    @inline(__always)
    mutating func bytes(_ text: StaticString) {
        // (`utf8Start` is read once: each read checks the form.)
        let size = text.utf8CodeUnitCount
        Self.copy(text.utf8Start, to: room(size), count: size)
        count += size
    }

    @inline(__always)
    mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        Self.copy(start, to: room(bytes.count), count: bytes.count)
        count += bytes.count
    }

    /// Copies bytes that are mostly a few (a key, digits, a scene's name)
    /// without a call to memcpy, which cost more than the copy: callgrind
    /// counted 60 instructions a key, a sixth of them memcpy's, 850,000
    /// keys in 20,000 adds. Up to 16 bytes they go as two words that may
    /// overlap (4 to 16) or one at a time (below 4); more go to memcpy.
    /// Both words are read before either is written, so `target` may lie
    /// before `source` in the same memory (`integer` moves its digits so).
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        if count >= 8 {
            guard count <= 16 else {
                to.copyMemory(from: from, byteCount: count)
                return
            }
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        } else {
            for index in 0..<count { target[index] = source[index] }
        }
    }

    /// `"key":`, after a comma unless it is an object's first member: one
    /// bounds check for the whole, the most frequent write of a toast.
    mutating func key(_ key: StaticString, first: Bool) {
        let size = key.utf8CodeUnitCount
        let source = key.utf8Start
        var at = room(size + 4)
        if !first {
            at.pointee = UInt8(ascii: ",")
            at += 1
        }
        at.pointee = UInt8(ascii: "\"")
        Self.copy(source, to: at + 1, count: size)
        at[1 + size] = UInt8(ascii: "\"")
        at[2 + size] = UInt8(ascii: ":")
        count += size + (first ? 3 : 4)
    }

    /// A JSON string: `"`, `\\`, the control characters and DEL escaped
    /// (`\n`, `\r`, `\t`, else `\u00XX`), and so are the C1 controls
    /// (U+0080 to U+009F) and the bidirectional marks, overrides and
    /// isolates (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
    /// U+2069), as `\uXXXX`: JSON allows them raw, but `jq` or `cat` would
    /// hand them to a terminal, where a C1 control starts an escape
    /// sequence and an override reorders what follows (issue #38).
    /// Everything else as it is.
    mutating func string(_ value: String) {
        byte(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Most strings need no escape: copied whole.
            guard Self.anyNeedsEscape(utf8) else {
                bytes(utf8)
                return
            }
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): bytes(#"\""#)
                case UInt8(ascii: "\\"): bytes(#"\\"#)
                case 0x0A: bytes(#"\n"#)
                case 0x0D: bytes(#"\r"#)
                case 0x09: bytes(#"\t"#)
                case 0x00..<0x20, 0x7F:
                    unicodeEscape(UInt32(byte))
                case 0xC2, 0xD8, 0xE2:
                    // Valid UTF-8 (a String's): the scalar's other bytes follow.
                    let length = byte == 0xE2 ? 3 : 2
                    var scalar = UInt32(byte & (length == 3 ? 0x0F : 0x1F))
                    for continuation in utf8[index..<index + length - 1] { scalar = scalar << 6 | UInt32(continuation & 0x3F) }
                    if Self.isHidden(scalar) {
                        unicodeEscape(scalar)
                    } else {
                        bytes(UnsafeBufferPointer(rebasing: utf8[index - 1..<index + length - 1]))
                    }
                    index += length - 1
                default:
                    self.byte(byte)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    /// The scalars past ASCII that `string` escapes.
    @inline(__always)
    static func isHidden(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `\uXXXX`, lower-case hex.
    private mutating func unicodeEscape(_ scalar: UInt32) {
        bytes(#"\u"#)
        for shift in stride(from: 12, through: 0, by: -4) {
            self.byte(Self.hexDigits.utf8Start[Int(scalar >> UInt32(shift) & 0x0F)])
        }
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xC2 || byte == 0xD8
            || byte == 0xE2
    }

    /// Whether some byte may need an escape, looked for eight bytes at a
    /// time (the scan was a third of writing a string): a word has a byte
    /// below 0x20 when `(w - 0x20…) & ~w & 0x80…` is not zero, and a byte
    /// equal to `c` when `w ^ c…` has a zero byte, found the same way. Both
    /// tests are exact about whether there is one. A lead byte of a scalar
    /// that may be hidden (0xC2, 0xD8, 0xE2) sends the string to the byte
    /// loop, which decides; text in other scripts (CJK leads with 0xE3 and
    /// up) stays on the fast path.
    static func anyNeedsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func below(_ word: UInt64, _ limit: UInt64) -> UInt64 { (word &- ones &* limit) & ~word & highs }
        var offset = 0
        while offset + 8 <= utf8.count {
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            var hits =
                below(word, 0x20) | below(word ^ (ones &* 0x22), 1) | below(word ^ (ones &* 0x5C), 1)
                | below(word ^ (ones &* 0x7F), 1)
            // Only a word with a byte past ASCII can hold a lead byte.
            if word & highs != 0 {
                hits |= below(word ^ (ones &* 0xC2), 1) | below(word ^ (ones &* 0xD8), 1) | below(word ^ (ones &* 0xE2), 1)
            }
            if hits != 0 { return true }
            offset += 8
        }
        while offset < utf8.count {
            if needsEscape(base[offset]) { return true }
            offset += 1
        }
        return false
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Decimal digits, as Swift writes an `Int64`.
    mutating func integer(_ value: Int64) {
        // Two digits a step from a table, from the end of a buffer of the
        // longest size: a timestamp is thirteen digits, and a division by
        // ten per digit (twice, to count them first) was a tenth of
        // encoding a toast.
        var magnitude = value.magnitude
        let longest = 20
        let start = room(longest)
        var end = start + longest
        let pairs = Self.digitPairs.utf8Start
        while magnitude >= 100 {
            let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
            magnitude /= 100
            end -= 2
            end[0] = pairs[pair]
            end[1] = pairs[pair &+ 1]
        }
        if magnitude >= 10 {
            let pair = Int(truncatingIfNeeded: magnitude) &* 2
            end -= 2
            end[0] = pairs[pair]
            end[1] = pairs[pair &+ 1]
        } else {
            end -= 1
            end[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
        if value < 0 {
            end -= 1
            end[0] = UInt8(ascii: "-")
        }
        let size = start + longest - end
        // The regions may overlap, the digits after where they go: `copy`
        // reads before it writes.
        if end != start { Self.copy(end, to: start, count: size) }
        count += size
    }

    /// "00", "01", … "99": the two digits of every number below 100.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// A JSON number: integral values without a fraction, others as Swift
    /// writes a `Double` (the shortest text that reads back the same).
    mutating func number(_ value: Double) {
        guard value.isFinite else {
            // JSON has no spelling for these; validation keeps them out of
            // every toast, so this is only a last line of defence.
            bytes("null")
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value))
        } else if let thousandths = Self.thousandths(value) {
            // Durations and progress are mostly a few decimals: written
            // without `description`'s String (a fifth of encoding a toast).
            if thousandths < 0 { byte(UInt8(ascii: "-")) }
            integer(Int64(thousandths.magnitude / 1_000))
            var fraction = thousandths.magnitude % 1_000
            var digits = 3
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            let start = room(digits + 1)
            start.pointee = UInt8(ascii: ".")
            for index in stride(from: digits, to: 0, by: -1) {
                start[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            count += digits + 1
        } else {
            var text = value.description
            text.withUTF8 { bytes($0) }
        }
    }

    /// `value` in thousandths, when it is exactly the double nearest to
    /// that many thousandths and not integral: then `description` writes
    /// those digits, trailing zeros dropped, since no shorter decimal reads
    /// back to it (below 1e9 two decimals of three places lie thousands of
    /// doubles apart), and `description` uses no exponent for it (nothing
    /// here is below 0.001 or above 1e16). A test holds it to `description`.
    static func thousandths(_ value: Double) -> Int64? {
        guard abs(value) < 1e9 else { return nil }
        let scaled = (value * 1_000).rounded()
        guard scaled / 1_000 == value, scaled.truncatingRemainder(dividingBy: 1_000) != 0 else { return nil }
        return Int64(scaled)
    }

    /// An object's members: each key with the separator before it; the
    /// caller writes the keys in canonical (sorted) order, and each value
    /// after its key.
    struct Members {
        private var first = true

        mutating func key(_ key: StaticString, _ out: inout LineWriter) {
            out.key(key, first: first)
            first = false
        }

        mutating func string(_ key: StaticString, _ value: String, _ out: inout LineWriter) {
            self.key(key, &out)
            out.string(value)
        }

        /// A name that needs no escape (an enumeration's wire name).
        mutating func name(_ key: StaticString, _ value: StaticString, _ out: inout LineWriter) {
            self.key(key, &out)
            out.byte(UInt8(ascii: "\""))
            out.bytes(value)
            out.byte(UInt8(ascii: "\""))
        }

        mutating func integer(_ key: StaticString, _ value: Int64, _ out: inout LineWriter) {
            self.key(key, &out)
            out.integer(value)
        }

        mutating func bool(_ key: StaticString, _ value: Bool, _ out: inout LineWriter) {
            self.key(key, &out)
            out.bytes(value ? "true" : "false")
        }
    }
}
