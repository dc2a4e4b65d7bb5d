// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import ToastTail

@Suite("Key decoding")
struct KeyDecoderTests {
    @Test func lettersDigitsAndControlKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("jkdcp123q".utf8)) == [.down, .up, .dismiss, .clear, .pause, .action(1), .action(2), .action(3), .quit])
        #expect(decoder.feed([0x03]) == [.quit])
        #expect(decoder.feed([0x0D, 0x0A]) == [.activate, .activate])
        #expect(decoder.feed(Array("49".utf8)) == [.action(4), .action(9)], "nine buttons have keys")
        #expect(decoder.feed(Array("0zZ".utf8)) == [])
    }

    @Test func arrowsInBothCursorModesEvenWhenSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42]) == [.up, .down])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.feed([0x5B]) == [])
        #expect(decoder.feed([0x42, UInt8(ascii: "d")]) == [.down, .dismiss])
        // Other sequences (a function key) are consumed, not read as letters.
        #expect(decoder.feed(Array("\u{1B}[15~".utf8)) == [])
    }
}
