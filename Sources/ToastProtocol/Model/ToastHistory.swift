// SPDX-License-Identifier: Apache-2.0
/// The last toasts that ended, newest last, for `history` and `restore`
/// (PROTOCOL.md section 5.5): what dunst's history and mako's restore keep,
/// bounded so that it never grows without end.
public struct ToastHistory: Sendable {
    public struct Entry: Sendable, Hashable {
        /// The toast as it was when it ended.
        public var record: ToastRecord
        /// Whether it had been shown (`dismissed`) or not (`cancelled`).
        public var shown: Bool
        /// The end reason, as in the end event.
        public var reason: String
        public var endedAt: ToastInstant
        /// The sequence number of its end event.
        public var seq: UInt64

        public init(record: ToastRecord, shown: Bool, reason: String, endedAt: ToastInstant, seq: UInt64) {
            self.record = record
            self.shown = shown
            self.reason = reason
            self.endedAt = endedAt
            self.seq = seq
        }

        /// The entry of an end event, or nil for any other event and for a
        /// toast that asked not to be kept (`transient`).
        public init?(_ event: ToastEvent) {
            guard event.record?.toast.transient != true else { return nil }
            switch event.kind {
            case .dismissed(let record, let reason):
                self.init(record: record, shown: true, reason: reason.rawValue, endedAt: event.time, seq: event.seq)
            case .cancelled(let record, let reason):
                self.init(record: record, shown: false, reason: reason.rawValue, endedAt: event.time, seq: event.seq)
            default:
                return nil
            }
        }
    }

    /// What `history` asks for.
    public struct Query: Sendable, Hashable {
        public var filter: EventFilter
        public var source: String?
        /// Only toasts that ended at or after this time.
        public var since: ToastInstant?
        /// At most this many (and never more than `maxLimit` in one reply).
        public var limit: Int?
        /// Only entries older than this end's `seq`: the next page.
        public var before: UInt64?

        /// The most entries one reply holds; `next` gives the rest.
        public static let maxLimit = 1_000

        public init(
            filter: EventFilter = EventFilter(), source: String? = nil, since: ToastInstant? = nil, limit: Int? = nil,
            before: UInt64? = nil
        ) {
            self.filter = filter
            self.source = source
            self.since = since
            self.limit = limit
            self.before = before
        }

        func matches(_ entry: Entry) -> Bool {
            filter.matches(entry.record) && (source == nil || entry.record.toast.source == source)
                && (since.map { entry.endedAt >= $0 } ?? true) && (before.map { entry.seq < $0 } ?? true)
        }
    }

    public let capacity: Int
    /// Oldest first; may hold a few more than `capacity` (see `append`).
    private var entries: [Entry] = []

    /// The kept entries, oldest first.
    public var all: ArraySlice<Entry> { entries.suffix(capacity) }

    /// `entries` oldest first, as a store kept them: the newest `capacity`
    /// are shown, and up to `slack(capacity)` older ones are kept behind
    /// them, as `append` keeps them, so that a restart holds what the run
    /// before it held.
    public init(capacity: Int, entries: [Entry] = []) {
        self.capacity = max(0, capacity)
        self.entries = Array(entries.suffix(self.capacity + Self.slack(capacity: self.capacity)))
    }

    /// How many entries beyond `capacity` are kept before the oldest are
    /// dropped, all in one go (down to `capacity`). The store keeps its
    /// file to the same rule, so that the file and the memory drop the same
    /// entries at the same moment, and an entry taken out (`restore`) is
    /// replaced by the same older one in both.
    public static func slack(capacity: Int) -> Int {
        capacity > 0 ? max(16, capacity / 8) : 0
    }

    public var count: Int { min(entries.count, capacity) }

    public mutating func append(_ entry: Entry) {
        guard capacity > 0 else { return }
        entries.append(entry)
        // Drop in chunks, so that a full history does not shift on every end.
        if entries.count > capacity + Self.slack(capacity: capacity) {
            entries.removeFirst(entries.count - capacity)
        }
    }

    /// The entries that match, newest first, at most `limit` and never more
    /// than `Query.maxLimit`; and whether more match beyond them.
    public func page(_ query: Query) -> (entries: [Entry], more: Bool) {
        var found: [Entry] = []
        let limit = min(query.limit ?? capacity, capacity, Query.maxLimit)
        for entry in entries.reversed().prefix(capacity) where query.matches(entry) {
            if found.count == limit { return (found, true) }
            found.append(entry)
        }
        return (found, false)
    }

    /// The entries that match, newest first (the first page).
    public func find(_ query: Query) -> [Entry] { page(query).entries }

    /// The newest entry of a toast id, or the newest of all.
    public func entry(id: ToastID?) -> Entry? {
        guard let id else { return entries.suffix(capacity).last }
        return entries.suffix(capacity).last { $0.record.id == id }
    }

    /// Takes an entry out (`restore` pops it, as dunst's history-pop does).
    public mutating func remove(id: ToastID) {
        entries.removeAll { $0.record.id == id }
    }

    /// Forgets everything; returns how many entries there were.
    public mutating func clear() -> Int {
        defer { entries = [] }
        return min(entries.count, capacity)
    }
}
