// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// Who receives each event: the subscribers whose filter matches it, and
/// the connections that added the toast, which hear how it ends (PROTOCOL.md,
/// sections 6.2 and 6.3).
///
/// A pure value: the daemon asks it where an event goes and then writes;
/// the transcript replayer asks it the same question and prints the answer,
/// so the routing the protocol describes is the routing the daemon does.
public struct EventRouter: Sendable {
    public typealias ConnectionID = Int

    /// One event to write to one connection.
    public struct Delivery: Sendable, Hashable {
        public var connection: ConnectionID
        /// Subscriber deliveries may be dropped for a lagging reader; origin
        /// deliveries (the adder's end event) never are.
        public var asSubscriber: Bool
        /// A subscriber delivery that is also the connection's own (it added
        /// or updated the toast): if the subscriber is behind, it must still
        /// learn of it (PROTOCOL.md 6.3), so the daemon keeps it apart.
        public var isOwn = false

        public init(connection: ConnectionID, asSubscriber: Bool, isOwn: Bool = false) {
            self.connection = connection
            self.asSubscriber = asSubscriber
            self.isOwn = isOwn
        }
    }

    private var open: Set<ConnectionID> = []
    /// Subscribers in connection order, so that deliveries are deterministic,
    /// each with its filter beside it: `route` walks them without a lookup.
    private var subscribers: [Subscriber] = []

    private struct Subscriber: Sendable {
        let connection: ConnectionID
        var filter: EventFilter
    }
    /// The open connections that added each live toast.
    private var origins = IDTable<Adders>(filler: Adders())
    /// The live toasts each open connection added, so that a connection's
    /// entries in `origins` go when it closes. They served nobody after
    /// that (nothing is routed to a closed connection, and ids are never
    /// reused), yet stayed until the toast ended: for good with an
    /// indefinite toast, and 8 MiB of the 100,000 toasts a closed client
    /// queued (docs/BENCHMARKS.md, section 4, "Adders forgotten").
    /// Keyed like toasts, by consecutive integers: connection ids.
    private var added = IDTable<IDSet>(filler: IDSet())

    /// The connections that added one toast, in the order they did: nearly
    /// always one, kept without an array (an allocation an add, and its
    /// release at the toast's end).
    struct Adders: Sendable {
        private var first: ConnectionID?
        private var more: [ConnectionID] = []

        mutating func insert(_ connection: ConnectionID) {
            if first == nil {
                first = connection
            } else if first != connection && !more.contains(connection) {
                more.append(connection)
            }
        }

        /// Takes `connection` out; the others keep their order.
        mutating func remove(_ connection: ConnectionID) {
            if first == connection {
                first = more.isEmpty ? nil : more.removeFirst()
            } else {
                more.removeAll { $0 == connection }
            }
        }

        var isEmpty: Bool { first == nil }

        func forEach(_ body: (ConnectionID) -> Void) {
            guard let first else { return }
            body(first)
            for connection in more { body(connection) }
        }
    }

    public init() {}

    public var subscriberCount: Int { subscribers.count }

    public func filter(of connection: ConnectionID) -> EventFilter? {
        subscribers.first { $0.connection == connection }?.filter
    }

    public mutating func connect(_ connection: ConnectionID) {
        open.insert(connection)
    }

    /// The connection closed: it receives nothing more, and the toasts it
    /// added forget it.
    public mutating func disconnect(_ connection: ConnectionID) {
        open.remove(connection)
        subscribers.removeAll { $0.connection == connection }
        guard let toasts = added.removeValue(forKey: ToastID(truncatingIfNeeded: connection)) else { return }
        // Most of the table: one pass that rebuilds it (`IDTable.update`).
        if toasts.count * 4 >= origins.count {
            origins.update { adders in
                adders.remove(connection)
                return !adders.isEmpty
            }
            return
        }
        for toast in toasts.members {
            guard var adders = origins[toast] else { continue }
            adders.remove(connection)
            origins[toast] = adders.isEmpty ? nil : adders
        }
    }

    /// Live toasts with an open adder (tests: what a closed connection and
    /// an ended toast leave behind).
    var toastsWithAdders: Int { origins.count }

    /// The live toasts `connection` added: what `disconnect` will forget.
    public func toastCount(addedBy connection: ConnectionID) -> Int { added[ToastID(truncatingIfNeeded: connection)]?.count ?? 0 }

    /// Makes a connection a subscriber (or changes its filter).
    public mutating func subscribe(_ connection: ConnectionID, filter: EventFilter) {
        guard open.contains(connection) else { return }
        let index = subscribers.firstIndex { $0.connection >= connection } ?? subscribers.endIndex
        if index < subscribers.endIndex, subscribers[index].connection == connection {
            subscribers[index].filter = filter
        } else {
            subscribers.insert(Subscriber(connection: connection, filter: filter), at: index)
        }
    }

    /// A connection added (or re-added, or updated) a toast that is still
    /// live: it hears that toast's `action` and its end.
    public mutating func noteAdder(_ connection: ConnectionID, of toast: ToastID) {
        guard open.contains(connection) else { return }
        origins[toast, default: Adders()].insert(connection)
        added[ToastID(truncatingIfNeeded: connection), default: IDSet()].insert(toast)
    }

    /// Where an event goes, subscribers first (in connection order), then
    /// the adders that do not already receive it as subscribers.
    public mutating func route(_ event: ToastEvent) -> [Delivery] {
        var deliveries: [Delivery] = []
        // Room for every subscriber and an adder: at 128 subscribers the
        // array grew seven times an event. No allocation without subscribers.
        if !subscribers.isEmpty { deliveries.reserveCapacity(subscribers.count + 1) }
        // By index: each subscriber's filter borrowed, not copied.
        for index in subscribers.indices where subscribers[index].filter.matches(event) {
            deliveries.append(Delivery(connection: subscribers[index].connection, asSubscriber: true))
        }
        guard let record = event.record else { return deliveries }
        switch event.kind {
        case .action, .dismissed, .cancelled:
            let subscribed = deliveries.count
            guard let adders = event.isEnd ? origins.removeValue(forKey: record.id) : origins[record.id] else { break }
            adders.forEach { connection in
                if let index = deliveries[..<subscribed].firstIndex(where: { $0.connection == connection }) {
                    deliveries[index].isOwn = true
                } else if open.contains(connection) {
                    deliveries.append(Delivery(connection: connection, asSubscriber: false))
                }
                // In place; never an entry for a connection that has none.
                let key = ToastID(truncatingIfNeeded: connection)
                if event.isEnd, added.contains(key) { added[key, default: IDSet()].remove(record.id) }
            }
        default:
            break
        }
        return deliveries
    }
}
