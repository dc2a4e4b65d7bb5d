// SPDX-License-Identifier: Apache-2.0

/// The request line, written a member at a time.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: text.bytes)
    }

    /// `,"key":`
    mutating func key(_ name: StaticString) {
        bytes.append(UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// `text` as a JSON string; false (and nothing written) when it is not UTF-8.
    mutating func string(_ text: Word) -> Bool {
        guard UTF8Check.isValid(text.bytes) else { return false }
        bytes.append(UInt8(ascii: "\""))
        for byte in text.bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                raw("\\u00")
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0xF))
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return true
    }

    /// A duration or a progress as the full toastctl sends it: a plain
    /// number (`5`, `0.25`) or a number of seconds (`5s`) as that number, a
    /// word of letters (`short`, `indefinite`) as a string. False for
    /// anything else (`2m`, `500ms`, `1e3`, `.5`), which the full toastctl reads.
    mutating func numberOrName(_ text: Word) -> Bool {
        let number = text.hasSuffix("s") && !text.hasSuffix("ms") ? text.slice(0, text.count - 1) : text
        if Self.isPlainNumber(number) {
            bytes.append(contentsOf: number.bytes)
            return true
        }
        guard !text.isEmpty, text.bytes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }) else { return false }
        return string(text)
    }

    /// `0`, `12`, `0.5`, `12.25`: a JSON number that is its own decimal
    /// text, at most nine digits each side, so that it reads as the same
    /// double however it is parsed.
    static func isPlainNumber(_ text: Word) -> Bool {
        let point = text.firstIndex(of: UInt8(ascii: "."))
        let whole = text.slice(0, point ?? text.count)
        guard Self.isDigits(whole), whole.count == 1 || whole.bytes[0] != UInt8(ascii: "0") else { return false }
        guard let point else { return true }
        return Self.isDigits(text.slice(point + 1, text.count))
    }

    private static func isDigits(_ text: Word) -> Bool {
        (1...9).contains(text.count) && text.bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

/// Well-formed UTF-8 (RFC 3629): no overlong form, no surrogate, nothing past U+10FFFF.
enum UTF8Check {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard index + length <= bytes.count, (low...high).contains(bytes[index + 1]) else { return false }
            for next in (index + 2)..<(index + length) where !(0x80...0xBF).contains(bytes[next]) { return false }
            index += length
        }
        return true
    }
}
