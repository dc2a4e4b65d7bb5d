// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// The last events the daemon published, so that a subscriber that
/// reconnects with `since` gets what it missed instead of a whole new
/// snapshot (PROTOCOL.md, section 6.4).
///
/// A ring of at most `capacity` events: memory stays bounded however long
/// the daemon runs. An event someone was sent is kept as those bytes, so its
/// replay never encodes it again; one that nobody was sent (no subscriber
/// at the time) is kept as the event and encoded only if it is ever
/// replayed, by the same pure encoder, to the same bytes.
public struct EventBacklog: Sendable {
    public struct Entry: Sendable {
        public let seq: UInt64
        /// What a subscription filter looks at; `nil` for paused/resumed.
        let scene: String?
        let role: ToastRole?
        private let encoded: [UInt8]?
        private let event: ToastEvent?

        init(_ event: ToastEvent, line: [UInt8]?) {
            seq = event.seq
            scene = event.record?.toast.scene
            role = event.record?.toast.role
            encoded = line
            self.event = line == nil ? event : nil
        }

        /// The event's line, newline included, exactly as it was (or would
        /// have been) published.
        public var line: [UInt8] { encoded ?? WireEncoder.eventLine(event!) }

        func matches(_ filter: EventFilter) -> Bool {
            guard let scene, let role else { return true }
            return (filter.scene == nil || filter.scene == scene) && (filter.roles?.contains(role) ?? true)
        }
    }

    public let capacity: Int
    private var entries: [Entry] = []
    /// Where the oldest entry is, once the ring is full.
    private var head = 0

    public init(capacity: Int) {
        precondition(capacity >= 0, "a backlog cannot hold a negative number of events")
        self.capacity = capacity
    }

    public var count: Int { entries.count }

    /// The oldest sequence number still held, if any.
    public var oldestSequence: UInt64? { entries.isEmpty ? nil : entries[head].seq }

    /// Records a published event, with its line if it was encoded (else it
    /// is encoded on replay). Events must arrive in sequence order.
    public mutating func append(_ event: ToastEvent, line: [UInt8]?) {
        guard capacity > 0 else { return }
        let entry = Entry(event, line: line)
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[head] = entry
            head = (head + 1) % capacity
        }
    }

    /// The events after `since` that match `filter`, oldest first; `nil` when
    /// they cannot all be given: some were already dropped from the ring, or
    /// `since` is ahead of `lastSequence` (a client of another instance).
    public func events(after since: UInt64, lastSequence: UInt64, matching filter: EventFilter) -> [Entry]? {
        if since == lastSequence { return [] }
        guard since < lastSequence, let oldest = oldestSequence, oldest <= since + 1 else { return nil }
        // Sequence numbers in the ring are consecutive, so the first one to
        // replay sits at a known distance from the oldest.
        let skip = Int(since + 1 - oldest)
        var replay: [Entry] = []
        for offset in skip..<entries.count {
            let entry = entries[(head + offset) % entries.count]
            if entry.matches(filter) { replay.append(entry) }
        }
        return replay
    }
}
