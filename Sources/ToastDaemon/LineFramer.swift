// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// One framed request line, or the news that a line was too long.
public enum FramedLine: Sendable {
    case line(ByteBuffer)
    /// A line exceeded the limit; its bytes are being discarded up to its newline.
    case tooLong
}

/// Splits the byte stream at newlines, with a bound on the line length.
/// An over-long line is reported once, as soon as it passes the bound, and
/// then skipped up to its newline, so memory per connection stays bounded
/// and the connection stays usable. A trailing `\r` is dropped: it belongs
/// to the line ending, so it never counts toward the limit, even while the
/// `\n` has not arrived yet. An empty line (after dropping `\r`) is skipped.
/// Public so that the benchmark's echo baseline frames lines exactly as
/// toastd does.
public struct LineFramer: ByteToMessageDecoder {
    public typealias InboundOut = FramedLine

    let maxLineBytes: Int
    private var discarding = false
    /// How many readable bytes are known to hold no newline: a line that
    /// arrives in many reads is searched once, not from its start after
    /// each (a 16 MiB line, the largest `--max-line-bytes`, in 64 KiB reads
    /// would be 2 GB of searching).
    private var searched = 0

    public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView[(buffer.readerIndex + searched)...].firstIndex(of: UInt8(ascii: "\n")) else {
            searched = buffer.readableBytes
            // One byte of slack: it may be the `\r` of a line of exactly the limit.
            if buffer.readableBytes > maxLineBytes + 1 {
                if !discarding {
                    discarding = true
                    context.fireChannelRead(wrapInboundOut(.tooLong))
                }
                buffer.moveReaderIndex(to: buffer.writerIndex)
                searched = 0
            }
            return .needMoreData
        }
        searched = 0
        let length = newline - buffer.readerIndex
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if discarding {
            discarding = false
            return .continue
        }
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        if line.readableBytes > maxLineBytes {
            context.fireChannelRead(wrapInboundOut(.tooLong))
        } else if line.readableBytes > 0 {
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .continue
    }

    /// A last line without its newline (`printf '...' | socat`) still counts.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 && !discarding {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        searched = 0
        return .needMoreData
    }
}
