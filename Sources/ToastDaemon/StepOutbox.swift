// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

/// The writes of one step, in the order the step made them, until the step
/// is committed and they are let out (`ToastHub.endStep`).
///
/// A line that bypasses the lag bound (a reply, a notice, an adder's own
/// event) joins the connection's previous write when that one is of the
/// same kind: a pipelined burst of adds becomes a few buffers and channel
/// writes instead of one per reply (each write is a buffer, a promise and a
/// trip through the pipeline, a tenth of an add in the ingest profile). A
/// joined write stops growing at `joinedBytes`, so a long burst still
/// flushes as it goes. Only the order of each connection's own writes
/// matters, so a subscriber's event to another connection in between does
/// not stop the join.
///
/// A subscriber's event is a write of its own, with its sequence number:
/// the subscriber's buffer bound counts events one by one.
struct StepOutbox {
    /// A line bound for a connection: bytes, or a reply or an event whose
    /// bytes are written once the step is committed (`encoded(_:)`).
    ///
    /// A step that commits on the commit thread encodes its replies and its
    /// adders' events there, after the commit, instead of on the event loop:
    /// they wait for the commit anyway, and the reply to an add (which
    /// carries the whole toast) was a tenth of the loop's work an add
    /// (docs/BENCHMARKS.md, section 2, "Replies written after the commit").
    /// Records are values, so the bytes are those of the moment of the reply.
    enum Line: Sendable {
        case bytes([UInt8])
        /// A response whose reply is the scheduler's answer.
        case reply(ToastService.Response)
        case event(ToastEvent)

        var bytes: [UInt8] {
            switch self {
            case .bytes(let bytes): bytes
            case .reply(let response): response.replyLine ?? []
            case .event(let event): WireEncoder.eventLine(event)
            }
        }

        /// What the line counts for toward `joinedBytes` before it is
        /// encoded: a reply or event with its toast is a few hundred bytes.
        var size: Int {
            if case .bytes(let bytes) = self { return bytes.count }
            return StepOutbox.unencodedLineSize
        }
    }

    struct Write: Sendable {
        var connection: Int
        /// The write's bytes; for a joined write, its lines encoded so far,
        /// and `lines` go after them.
        var bytes: ByteBuffer
        var lines: [Line] = []
        /// The event's sequence number for a subscriber delivery; `nil` for
        /// a write that bypasses the lag bound.
        var seq: UInt64?
        /// The connection's last write of the step: flush it once written,
        /// so that the kernel has each connection's bytes while the step's
        /// writes to the others are still being made.
        var isLast = true
        /// `bytes` and `lines` together, the unencoded lines as estimated.
        var size: Int
        /// A subscriber's event that is also the connection's own: kept if
        /// the subscriber is behind and it is not written.
        var isOwn = false
        /// What this write counts toward its connection's unread replies
        /// (`RequestHold`): its size as appended, estimates included, kept
        /// through encoding so that what is counted in is counted out.
        var owed = 0

        /// With every line written into `bytes`.
        func encoded() -> Write {
            guard !lines.isEmpty else { return self }
            var write = self
            write.lines = []
            for line in lines { write.bytes.writeBytes(line.bytes) }
            write.size = write.bytes.readableBytes
            return write
        }
    }

    private(set) var writes: [Write] = []
    /// Each connection's latest write in `writes`.
    private var latest: [Int: Int] = [:]
    /// What the step's replies to each connection come to (the lines that
    /// bypass the lag bound, estimates included): counted toward the
    /// connection's unread replies while the step runs (`RequestHold`).
    private(set) var owed: [Int: Int] = [:]

    /// The most a joined write holds: a subscriber's early-flush size.
    static let joinedBytes = SubscriberStateMachine.Limits(bufferBytes: 0).burstFlushBytes
    /// Room for a few replies before a joined write first grows.
    static let firstCapacity = 1_024
    /// What a reply or an event not yet encoded counts for.
    static let unencodedLineSize = 512

    var isEmpty: Bool { writes.isEmpty }

    init() {}

    /// An outbox with room for a write to each of `connections` connections:
    /// a step that publishes to every subscriber would otherwise grow both
    /// from empty (at 128 subscribers, seven rehashes a step).
    init(reservingFor connections: Int) {
        writes.reserveCapacity(connections)
        latest.reserveCapacity(connections)
    }

    /// A subscriber's event (`seq`), or bytes already in a buffer; `isOwn`
    /// for a subscriber's event that is also its own (`EventRouter.Delivery`).
    mutating func append(_ bytes: ByteBuffer, to connection: Int, seq: UInt64?, isOwn: Bool = false) {
        add(Write(connection: connection, bytes: bytes, seq: seq, size: bytes.readableBytes, isOwn: isOwn))
    }

    /// A new write, now its connection's last.
    private mutating func add(_ write: Write) {
        if let previous = latest.updateValue(writes.count, forKey: write.connection) { writes[previous].isLast = false }
        writes.append(write)
    }

    /// A line that bypasses the lag bound, joined to the connection's
    /// previous such write when it fits.
    mutating func append(line: [UInt8], to connection: Int) {
        append(.bytes(line), to: connection)
    }

    /// A line that bypasses the lag bound, joined to the connection's
    /// previous such write when it fits; written into the write's bytes at
    /// once unless lines wait to be encoded before it.
    mutating func append(_ line: consuming Line, to connection: Int) {
        let size = line.size
        owed[connection, default: 0] += size
        if let index = latest[connection], writes[index].seq == nil, writes[index].size + size <= Self.joinedBytes {
            writes[index].size += size
            writes[index].owed += size
            if case .bytes(let bytes) = line, writes[index].lines.isEmpty {
                writes[index].bytes.writeBytes(bytes)
            } else {
                writes[index].lines.append(line)
            }
            return
        }
        var bytes = ByteBuffer()
        var lines: [Line] = []
        if case .bytes(let encoded) = line {
            bytes.reserveCapacity(max(encoded.count, Self.firstCapacity))
            bytes.writeBytes(encoded)
        } else {
            lines = [line]
        }
        add(Write(connection: connection, bytes: bytes, lines: lines, seq: nil, size: size, owed: size))
    }

    /// `writes` with every line encoded, in order: run once the step is
    /// committed, on the commit thread when the step went there.
    static func encoded(_ writes: [Write]) -> [Write] {
        writes.contains { !$0.lines.isEmpty } ? writes.map { $0.encoded() } : writes
    }
}
