// SPDX-License-Identifier: Apache-2.0
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

    /// However the stream is cut into reads, the framer passes on the same
    /// lines: it resumes its search for a newline where the last read's
    /// search ended, and must start afresh after each line and discard.
    @Test func everyWayOfCuttingTheStreamFramesTheSameLines() throws {
        let stream = "a\nbb\r\n\n0123456789abc\nok\r\n12345678\r\nxyz"
        let whole = try Self.frame([stream], limit: 8, close: true)
        #expect(whole == ["a", "bb", "<too long>", "ok", "12345678", "xyz"])
        let bytes = Array(stream.utf8)
        for size in 1..<bytes.count {
            let chunks = stride(from: 0, to: bytes.count, by: size).map { String(decoding: bytes[$0..<min($0 + size, bytes.count)], as: UTF8.self) }
            #expect(try Self.frame(chunks, limit: 8, close: true) == whole, "reads of \(size) bytes")
        }
    }

    @Test func aLongLineIsReportedOnceAndTheConnectionGoesOn() throws {
        #expect(try Self.frame(["0123456789", "0123456789", "\nok\n"], limit: 8) == ["<too long>", "ok"])
    }
}
