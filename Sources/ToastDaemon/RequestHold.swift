// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// One connection's requests held back while the replies it has not read
/// are at their bound (PROTOCOL.md, 1.3).
///
/// Not reading a client's socket (flow control) stopped new requests, but
/// not the replies to those already read: one read of 420 bytes held 30
/// pipelined `list`s, each answered with 3 MB, and toastd grew by 370 MiB
/// for a client that never read (issue #38). Now a request is answered only
/// while what the connection owes is under `bound`: the replies of steps
/// not yet written, plus what swift-nio holds for it. The rest of the read
/// waits here, in order, and reading stops until the client has read the
/// replies down; so toastd holds at most `bound`, one reply and one read's
/// requests for a client, however it pipelines.
struct RequestHold {
    /// The writer's high mark (`ToastServer.writeBufferWaterMark`).
    static let bound = 4 << 20

    /// Lines read and not yet answered, oldest first.
    private(set) var held = CircularBuffer<FramedLine>()
    /// Replies of steps not yet written to the channel (their estimated
    /// size, `StepOutbox.Write.owed`).
    var owed = 0
    /// The client closed its side while lines were held: close once they
    /// are answered.
    var closeWhenAnswered = false

    var isHolding: Bool { !held.isEmpty }

    /// What to do with a line just read.
    enum Decision: Equatable {
        case answer
        /// Held: stop reading the socket.
        case hold
    }

    /// `stepOwed`: the current step's replies to the connection;
    /// `buffered`: what swift-nio holds for it.
    mutating func read(_ line: FramedLine, stepOwed: Int, buffered: Int, writable: Bool) -> Decision {
        if isHolding || mustWait(stepOwed: stepOwed, buffered: buffered, writable: writable) {
            held.append(line)
            return .hold
        }
        return .answer
    }

    func mustWait(stepOwed: Int, buffered: Int, writable: Bool) -> Bool {
        !writable || owed + stepOwed + buffered >= Self.bound
    }

    /// The next held line to answer now, if the bound allows.
    mutating func next(stepOwed: Int, buffered: Int, writable: Bool) -> FramedLine? {
        guard isHolding, !mustWait(stepOwed: stepOwed, buffered: buffered, writable: writable) else { return nil }
        return held.removeFirst()
    }
}
