// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// Requests answered as the client reads its replies (`RequestHold`).
extension ToastHub {
    /// A framed line from a connection: answered now, or held while the
    /// connection's unread replies are at their bound.
    func receive(_ line: FramedLine, from id: Int) {
        loop.preconditionInEventLoop()
        guard let connection = connections[id] else { return }
        noteSpoken(connection)
        let decision = connection.hold.read(
            line, stepOwed: outbox.owed[id] ?? 0, buffered: connection.heldBytes { bufferedBytes(connection.channel) },
            writable: connection.channel.isWritable
        )
        switch decision {
        case .answer: answer(line, from: id)
        case .hold: setReading(connection, false)
        }
    }

    private func answer(_ line: FramedLine, from id: Int) {
        guard let connection = connections[id], admits(line, on: connection) else { return }
        switch line {
        case .line(let bytes): handle(line: bytes, from: id)
        case .tooLong: rejectLongLine(from: id, maxLineBytes: limits.maxLineBytes)
        }
    }

    /// Reads a connection's socket (and at once, if `on`), or stops reading
    /// it. The channel's option is set only when that changes: every line
    /// of a read held behind the bound stops reading, and setting the
    /// option (its type matched by dynamic casts) for each was 1,300 to
    /// 2,900 instructions an add of a pipelined burst (docs/BENCHMARKS.md,
    /// section 2, "A held read stops reading once").
    func setReading(_ connection: Connection, _ on: Bool) {
        if connection.readingChanged(to: on) { setAutoRead(connection.channel, on) }
        if on { connection.readNow() }
    }

    /// The channel's writability changed: reading follows it, and held
    /// requests are answered once it is writable again.
    func writabilityChanged(_ id: Int, writable: Bool) {
        loop.preconditionInEventLoop()
        guard let connection = connections[id] else { return }
        if !writable {
            setReading(connection, false)
        } else if connection.hold.isHolding {
            answerHeldRequests()
        } else {
            setReading(connection, true)
        }
    }

    /// Answers every connection's held requests while its bound allows; a
    /// connection whose requests are all answered is read again (or
    /// closed, if its client had closed its side meanwhile).
    func answerHeldRequests() {
        loop.preconditionInEventLoop()
        var answered = false
        for (id, connection) in connections where connection.hold.isHolding {
            while let line = connection.hold.next(
                stepOwed: outbox.owed[id] ?? 0, buffered: connection.heldBytes { bufferedBytes(connection.channel) },
                writable: connection.channel.isWritable
            ) {
                answer(line, from: id)
                answered = true
            }
            guard !connection.hold.isHolding else { continue }
            if connection.hold.closeWhenAnswered {
                connection.hold.closeWhenAnswered = false
                closeOnceAnswered(id)
            } else {
                setReading(connection, true)
            }
        }
        if answered { endStep() }
    }
}
