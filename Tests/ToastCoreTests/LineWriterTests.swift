import Testing

@testable import ToastCore

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

    @Test func stringsAreEscapedAsJSONAsks() {
        #expect(Self.text { $0.string("plain é 🍞") } == #""plain é 🍞""#)
        #expect(Self.text { $0.string("a\"b\\c\n\r\t\u{0}\u{1F}\u{7F}") } == #""a\"b\\c\n\r\t\u0000\u001f\u007f""#)
        #expect(Self.text { $0.string("") } == #""""#)
    }

    @Test(arguments: [
        (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.1, "0.1"), (-0.5, "-0.5"), (1.5e15, "1500000000000000.0"), (1e20, "1e+20"),
        (.infinity, "null"), (.nan, "null"),
    ])
    func numbersAreWrittenAsBefore(value: Double, expected: String) {
        #expect(Self.text { $0.number(value) } == expected)
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
