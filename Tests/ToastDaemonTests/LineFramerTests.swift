import NIOCore
import NIOEmbedded
import Testing

@testable import ToastDaemon

/// The framing rules of PROTOCOL.md section 1, on an EmbeddedChannel.
@Suite("Line framer")
struct LineFramerTests {
    /// Feeds chunks and returns what the framer passed on: each line's
    /// text, or "<too long>".
    static func frame(_ chunks: [String], limit: Int, close: Bool = false) throws -> [String] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFramer(maxLineBytes: limit)))
        for chunk in chunks {
            try channel.writeInbound(ByteBuffer(string: chunk))
        }
        if close { try channel.close().wait() }
        var out: [String] = []
        while let framed = try channel.readInbound(as: FramedLine.self) {
            switch framed {
            case .line(let buffer): out.append(String(buffer: buffer))
            case .tooLong: out.append("<too long>")
            }
        }
        _ = try? channel.finish()
        return out
    }

    @Test func linesEmptyLinesAndCRLF() throws {
        #expect(try Self.frame(["a\nbb\r\n\n\r\n  \nc"], limit: 16, close: true) == ["a", "bb", "  ", "c"])
    }

    @Test func aCarriageReturnIsNotPartOfTheLimitEvenWhenTheNewlineComesLater() throws {
        #expect(try Self.frame(["abcd\r", "\n"], limit: 4) == ["abcd"])
        #expect(try Self.frame(["abcd\r\n"], limit: 4) == ["abcd"])
        #expect(try Self.frame(["abcde", "\n"], limit: 4) == ["<too long>"])
    }

    @Test func aLongLineIsReportedOnceAndTheConnectionGoesOn() throws {
        #expect(try Self.frame(["0123456789", "0123456789", "\nok\n"], limit: 8) == ["<too long>", "ok"])
    }
}
