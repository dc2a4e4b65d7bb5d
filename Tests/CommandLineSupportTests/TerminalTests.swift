// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import CommandLineSupport

/// Toast text is untrusted: what reaches a terminal can never move the
/// cursor, recolour, retitle the window or reorder what follows.
@Suite("Terminal.sanitize")
struct TerminalTests {
    @Test(arguments: [
        ("\u{1B}[2J\u{1B}]0;owned\u{07}", #"\u{1B}[2J\u{1B}]0;owned\u{7}"#),
        ("a\u{0}b\u{7F}c\u{9B}d", #"a\u{0}b\u{7F}c\u{9B}d"#),
        ("left\u{202E}right\u{2066}x\u{2069}", #"left\u{202E}right\u{2066}x\u{2069}"#),
        ("two\nlines\tand\rcr", "two lines and cr"),
        ("plain café 🍞", "plain café 🍞"),
    ])
    func controlCharactersBecomeVisibleEscapes(input: String, expected: String) {
        #expect(Terminal.sanitize(input) == expected)
    }

    @Test func noControlCharacterSurvivesAnyInput() {
        for _ in 0..<500 {
            let scalars = (0..<40).compactMap { _ in Unicode.Scalar(UInt32.random(in: 0...0x2070)) }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            let clean = Terminal.sanitize(text)
            #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || (0x202A...0x202E).contains($0.value) })
        }
    }

    /// `sanitize` returns text it has nothing to replace in without looking
    /// at its scalars: every scalar it must replace has to send it down the
    /// slow path. Each scalar of the first planes' ranges, and a few beyond,
    /// alone between two letters, comes out as the rule says.
    @Test func everyScalarBetweenLettersIsReplacedOrKept() {
        func expected(_ scalar: Unicode.Scalar) -> String {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: return " "
            case 0x00..<0x20, 0x7F..<0xA0, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: return String(scalar)
            }
        }
        let values = Array(0...0x2FFF) + [0xFEFF, 0xFFFD, 0x1F35E, 0x10FFFF]
        var wrong: [String] = []
        for value in values {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            if Terminal.sanitize("a\(scalar)b") != "a" + expected(scalar) + "b" {
                wrong.append(String(value, radix: 16))
            }
        }
        #expect(wrong.isEmpty, "scalars not sanitized as the rule says: \(wrong.prefix(20))")
    }

    @Test func anEventIsOneSafeLine() {
        var toast = Toast(message: "red\nalert", title: "CI\u{1B}[31m", role: .failure)
        toast.source = "ci"
        let record = ToastRecord(id: 9, toast: toast, state: .shown, repeatCount: 3, createdAt: 1, presentedAt: 1)
        let event = WireEncoder.event(ToastEvent(seq: 4, time: 5, kind: .dismissed(record, .user)))
        #expect(Terminal.describe(event) == #"#4 dismissed 9 failure: CI\u{1B}[31m: red alert (user) ×3"#)
        let snapshot: JSONValue = [
            "event": "snapshot", "seq": 2, "sequence": 2, "time": 5, "stacks": [], "paused": true, "pauseLevel": 50,
            "toasts": [WireEncoder.toast(record), WireEncoder.toast(record)],
        ]
        #expect(Terminal.describe(snapshot) == "#2 snapshot: 2 toasts, paused")
        #expect(Terminal.describe(WireEncoder.line(WireEncoder.laggedNotice(seq: 7, time: 1, dropped: 3)).dropLast().asJSON) == "#7 lagged (3 dropped)")
    }
}

extension Array where Element == UInt8 {
    var asJSON: JSONValue { (try? JSONValue.parse(String(decoding: self, as: UTF8.self))) ?? .null }
}

extension ArraySlice where Element == UInt8 {
    var asJSON: JSONValue { Array(self).asJSON }
}
