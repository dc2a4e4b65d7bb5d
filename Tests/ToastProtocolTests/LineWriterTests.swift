// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastProtocol

@Suite("The line writer")
struct LineWriterTests {
    static func text(_ body: (inout LineWriter) -> Void, scratch: Int = 1_024) -> String {
        String(decoding: LineWriter.line(scratch: scratch, body), as: UTF8.self)
    }

    /// A line that outgrows its scratch memory, several times over, comes
    /// back whole: the moves to the heap keep what was written before.
    @Test(arguments: [1, 7, 64, 1_024])
    func aLineLargerThanItsScratchIsWrittenWhole(scratch: Int) {
        let pieces = (0..<500).map { "piece \($0) \u{1B}\"\\ é" }
        let written = Self.text({ out in
            for piece in pieces {
                out.string(piece)
                out.byte(UInt8(ascii: ","))
            }
        }, scratch: scratch)
        let expected = pieces.map { #""piece \#($0.split(separator: " ")[1]) \u001b\"\\ é","# }.joined()
        #expect(written == expected)
    }

    /// `copy` against a byte loop: every length from 0 to 40 (the word
    /// paths, memcpy's beyond 16), apart and moved down within one buffer
    /// (as `integer` moves its digits), and integers of every length.
    @Test func smallCopiesAreExact() {
        let source = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0...40 {
            var target = [UInt8](repeating: 0xEE, count: 48)
            source.withUnsafeBufferPointer { from in
                target.withUnsafeMutableBufferPointer { LineWriter.copy(from.baseAddress! + 3, to: $0.baseAddress! + 2, count: count) }
            }
            #expect(Array(target[2..<(2 + count)]) == Array(source[3..<(3 + count)]), "length \(count)")
            #expect(target[..<2].allSatisfy { $0 == 0xEE } && target[(2 + count)...].allSatisfy { $0 == 0xEE }, "length \(count)")
            for shift in 1...20 {
                var buffer = source
                buffer.withUnsafeMutableBufferPointer { LineWriter.copy($0.baseAddress! + shift, to: $0.baseAddress!, count: count) }
                #expect(Array(buffer[..<count]) == Array(source[shift..<(shift + count)]), "length \(count), moved down \(shift)")
                #expect(Array(buffer[count...]) == Array(source[count...]), "length \(count), moved down \(shift)")
            }
        }
        var value: Int64 = 1
        for _ in 0..<19 {
            for candidate in [value, value - 1, -value, value * 7 / 3] {
                #expect(Self.text { $0.integer(candidate) } == String(candidate))
            }
            value = value &* 10
        }
        #expect(Self.text { $0.integer(.min) } == String(Int64.min))
        #expect(Self.text { $0.integer(.max) } == String(Int64.max))
    }

    @Test func stringsAreEscapedAsJSONAsks() {
        #expect(Self.text { $0.string("plain é 🍞") } == #""plain é 🍞""#)
        #expect(Self.text { $0.string("a\"b\\c\n\r\t\u{0}\u{1F}\u{7F}") } == #""a\"b\\c\n\r\t\u0000\u001f\u007f""#)
        #expect(Self.text { $0.string("") } == #""""#)
    }

    /// C1 controls and bidirectional controls are escaped, so that `--json`
    /// piped to a terminal cannot start an escape sequence (U+009B is CSI)
    /// or reorder the line; their neighbours, and other text that shares
    /// their lead bytes, are not.
    @Test func hiddenControlsAreEscapedAndTheirNeighboursAreNot() throws {
        let hidden: [UInt32] = [0x80, 0x85, 0x9B, 0x9F, 0x061C, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069]
        for scalar in hidden {
            let text = "a" + String(Character(Unicode.Scalar(scalar)!)) + "b"
            let expected = "\"a\\u" + String(repeating: "0", count: 4 - String(scalar, radix: 16).count) + String(scalar, radix: 16) + "b\""
            #expect(Self.text { $0.string(text) } == expected)
            // It reads back as the same text.
            #expect(try JSONValue.parse(expected) == .string(text))
        }
        let kept = "\u{A0}\u{BF}\u{61B}\u{61D}\u{200D}\u{2010}\u{2019}\u{2026}\u{202F}\u{2065}\u{206A}€—日本語🍞"
        #expect(Self.text { $0.string(kept) } == "\"" + kept + "\"")
    }

    @Test(arguments: [
        (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.1, "0.1"), (-0.5, "-0.5"), (1.5e15, "1500000000000000.0"), (1e20, "1e+20"),
        (.infinity, "null"), (.nan, "null"),
    ])
    func numbersAreWrittenAsBefore(value: Double, expected: String) {
        #expect(Self.text { $0.number(value) } == expected)
    }

    /// Numbers of a few decimals are written without `description`, and
    /// must come out exactly as it writes them: every count of thousandths
    /// near the edges, random ones up to a billion, and random doubles
    /// (which mostly take `description` itself).
    @Test func decimalsAreWrittenAsDescriptionWritesThem() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var values: [Double] = []
        for thousandths in Int64(-2_100)...2_100 { values.append(Double(thousandths) / 1_000) }
        for _ in 0..<20_000 {
            let thousandths = Int64(next() % 2_000_000_000_000) - 1_000_000_000_000
            values.append(Double(thousandths) / 1_000)
            values.append(Double(bitPattern: next() << 11 | next() % 2_048))
            values.append(Double(next() % 1_000_000) / 997)
        }
        values += [0.001, -0.001, 999_999_999.999, 1e9 - 0.5, 1e9 + 0.5, 0.1 + 0.2, 1.0 / 3, 86_400.5, 0.0005]
        var taken = 0
        for value in values where value.isFinite && value != value.rounded() {
            if LineWriter.thousandths(value) != nil { taken += 1 }
            let written = Self.text { $0.number(value) }
            if written != value.description { Issue.record("\(value.description) written as \(written)") }
        }
        #expect(taken > 20_000)
    }

    @Test func theWireNamesAreTheRawValues() {
        for role in ToastRole.allCases { #expect(WireEncoder.wireName(role).description == role.rawValue) }
        for alignment in ToastAlignment.allCases { #expect(WireEncoder.wireName(alignment).description == alignment.rawValue) }
        for policy in CancellationPolicy.allCases { #expect(WireEncoder.wireName(policy).description == policy.rawValue) }
        for state in [ToastRecord.State.queued, .shown] { #expect(WireEncoder.wireName(state).description == state.rawValue) }
    }

    @Test func membersAreSeparatedAndKeyed() {
        let text = Self.text { out in
            out.byte(UInt8(ascii: "{"))
            var members = LineWriter.Members()
            members.bool("a", true, &out)
            members.integer("b", -12, &out)
            members.string("c", "x", &out)
            members.key("d", &out)
            out.bytes("[]")
            out.byte(UInt8(ascii: "}"))
        }
        #expect(text == #"{"a":true,"b":-12,"c":"x","d":[]}"#)
    }
}

extension LineWriterTests {
    /// The word-at-a-time scan agrees with the byte-by-byte rule on texts
    /// made of the bytes at the edges of every test it makes, at every
    /// length and alignment around a word.
    @Test func theWordScanFindsEveryByteThatNeedsAnEscape() {
        let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0x9F, 0xA2, 0xC1, 0xC2, 0xC3, 0xD7, 0xD8, 0xD9, 0xDC, 0xE1, 0xE2, 0xE3, 0xFF, 0x61]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<20_000 {
            let length = Int(next() % 25)
            // Mostly plain letters, so that a single byte at the edge is
            // often the only one to find.
            let bytes = (0..<length).map { _ in next() % 4 == 0 ? edges[Int(next() % UInt64(edges.count))] : UInt8(ascii: "a") }
            let expected = bytes.contains(where: LineWriter.needsEscape)
            let found = bytes.withUnsafeBufferPointer(LineWriter.anyNeedsEscape)
            if found != expected { Issue.record("\(bytes): expected \(expected)") }
        }
    }
}
