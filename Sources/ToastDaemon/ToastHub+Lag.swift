// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

/// A subscriber that falls behind: its lag timer, its catch-up from the
/// backlog, and `lagged` with a fresh snapshot when the backlog no longer
/// reaches back (`SubscriberStateMachine` decides; these carry it out).
extension ToastHub {
    func armLagTimer(_ connection: Connection) {
        loop.scheduleTask(in: limits.lagTimeout) { [self] in
            guard connections[connection.id] != nil else { return }
            switch connection.output.lagTimerFired(buffered: { bufferedBytes(connection.channel) }) {
            case .none:
                break
            case .rearm:
                armLagTimer(connection)
            case .disconnect:
                logger.warning("disconnecting a subscriber that stopped reading", metadata: ["connection": "\(connection.id)"])
                connection.channel.close(promise: nil)
            }
        }
    }

    /// A catch-up turn: the backlog's events the subscriber missed, as many
    /// as its policy takes; or `lagged` and a snapshot when they are lost.
    func catchUp(_ connection: Connection) {
        guard connections[connection.id] != nil, case .readBacklog(let after) = connection.output.catchUpTurn() else { return }
        let filter = service.router.filter(of: connection.id) ?? EventFilter()
        let missed = service.backlog.events(after: after, lastSequence: service.scheduler.lastSequence, matching: filter)
        let offered = missed?.lazy.map { (seq: $0.seq, bytes: $0.line.count) }
        switch connection.output.replay(offered, released: releasedSequence, buffered: { bufferedBytes(connection.channel) }) {
        case .write(let count, let live):
            for entry in missed?.prefix(count) ?? [] { connection.write(ByteBuffer(bytes: entry.line), flush: false) }
            // Its own events among them were given with the rest.
            if let last = missed?.prefix(count).last?.seq { connection.missedOwn.removeAll { $0.seq <= last } }
            if !live { watchDrain(of: connection) }
            connection.flush()
        case .resync(let dropped):
            resync(connection, dropped: dropped)
        }
    }

    /// `lagged`, then a snapshot: a step of its own, so that it goes out in
    /// order with the steps before it.
    func resync(_ connection: Connection, dropped: Int) {
        let notice = WireEncoder.laggedNotice(seq: service.scheduler.lastSequence, time: clock.now(), dropped: dropped)
        let pending = outbox
        outbox = StepOutbox()
        send(WireEncoder.line(notice), to: connection)
        // The connection's own events of the gap (how its toasts ended),
        // which 6.3 never drops: after `lagged`, before the snapshot whose
        // seq follows theirs.
        for own in connection.missedOwn { send(Array(own.line.readableBytesView), to: connection) }
        connection.missedOwn = []
        sendSnapshot(to: connection)
        endStep()
        outbox = pending
    }

    func sendSnapshot(to connection: Connection) {
        let filter = service.router.filter(of: connection.id) ?? EventFilter()
        send(service.snapshotLine(filter: filter, now: clock.now()), to: connection)
    }
}
