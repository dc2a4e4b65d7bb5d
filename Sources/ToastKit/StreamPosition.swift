import ToastCore

/// Where a subscriber is in toastd's event stream, so that the next
/// connection resumes there (`subscribe` with `since` and `instance`,
/// PROTOCOL.md section 6.4) instead of starting over from a snapshot.
public struct StreamPosition: Sendable, Hashable {
    /// The daemon instance the sequence numbers belong to.
    public private(set) var instance: String?
    /// The last sequence number this subscriber has seen.
    public private(set) var sequence: UInt64?

    public init() {}

    /// Takes note of a line received on a subscription: the subscribe reply
    /// names the instance, a snapshot or an event moves the sequence.
    public mutating func note(_ value: JSONValue) {
        if value["ok"] == .bool(true), let instance = value["result"]?["instance"]?.stringValue {
            self.instance = instance
            return
        }
        guard let event = value["event"]?.stringValue else { return }
        if event == "snapshot", let instance = value["instance"]?.stringValue {
            self.instance = instance
        }
        if let seq = value["seq"]?.intValue, seq >= 0 {
            sequence = UInt64(seq)
        }
    }

    /// The subscribe request for `filter`: resuming after `sequence` once
    /// there is one, else a plain subscription with a snapshot.
    public func subscribeRequest(_ filter: EventFilter) -> JSONValue {
        WireEncoder.request(.subscribe(Request.Subscribe(filter: filter, since: sequence, instance: sequence == nil ? nil : instance)))
    }

    /// Whether a subscribe reply says the events were replayed (no snapshot
    /// follows, so what the viewer holds stays valid).
    public static func resumed(_ reply: JSONValue) -> Bool {
        reply["result"]?["resync"] == .bool(false)
    }
}
