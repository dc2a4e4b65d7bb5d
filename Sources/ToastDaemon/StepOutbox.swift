import NIOCore

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
    struct Write {
        var connection: Int
        var bytes: ByteBuffer
        /// The event's sequence number for a subscriber delivery; `nil` for
        /// a write that bypasses the lag bound.
        var seq: UInt64?
        /// The connection's last write of the step: flush it once written,
        /// so that the kernel has each connection's bytes while the step's
        /// writes to the others are still being made.
        var isLast = true
    }

    private(set) var writes: [Write] = []
    /// Each connection's latest write in `writes`.
    private var latest: [Int: Int] = [:]

    /// The most a joined write holds: a subscriber's early-flush size.
    static let joinedBytes = SubscriberStateMachine.Limits(bufferBytes: 0).burstFlushBytes
    /// Room for a few replies before a joined write first grows.
    static let firstCapacity = 1_024

    var isEmpty: Bool { writes.isEmpty }

    init() {}

    /// An outbox with room for a write to each of `connections` connections:
    /// a step that publishes to every subscriber would otherwise grow both
    /// from empty (at 128 subscribers, seven rehashes a step).
    init(reservingFor connections: Int) {
        writes.reserveCapacity(connections)
        latest.reserveCapacity(connections)
    }

    /// A subscriber's event (`seq`), or bytes already in a buffer.
    mutating func append(_ bytes: ByteBuffer, to connection: Int, seq: UInt64?) {
        if let previous = latest.updateValue(writes.count, forKey: connection) { writes[previous].isLast = false }
        writes.append(Write(connection: connection, bytes: bytes, seq: seq))
    }

    /// A line that bypasses the lag bound, joined to the connection's
    /// previous such write when it fits.
    mutating func append(line: [UInt8], to connection: Int) {
        if let index = latest[connection], writes[index].seq == nil,
            writes[index].bytes.readableBytes + line.count <= Self.joinedBytes
        {
            writes[index].bytes.writeBytes(line)
            return
        }
        var bytes = ByteBuffer()
        bytes.reserveCapacity(max(line.count, Self.firstCapacity))
        bytes.writeBytes(line)
        append(bytes, to: connection, seq: nil)
    }
}
