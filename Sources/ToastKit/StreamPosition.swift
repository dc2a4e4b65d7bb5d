// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

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
    public mutating func note(_ line: ServerLine) {
        switch line {
        case .reply(_, .success(let result)):
            if let instance = result["instance"]?.stringValue { self.instance = instance }
        case .reply(_, .failure):
            break
        case .snapshot(let snapshot):
            instance = snapshot.instance
            sequence = snapshot.snapshot.sequence
        case .event(let event):
            sequence = event.seq
        case .lagged(let seq, _, _), .shutdown(let seq, _, _):
            sequence = seq
        case .unknown:
            break
        }
    }

    /// The subscribe request for `filter`: resuming after `sequence` once
    /// there is one, else a plain subscription with a snapshot.
    public func subscribeRequest(_ filter: EventFilter, snapshot: Bool = true) -> JSONValue {
        WireEncoder.request(
            .subscribe(Request.Subscribe(filter: filter, snapshot: snapshot, since: sequence, instance: sequence == nil ? nil : instance))
        )
    }

    /// Whether a subscribe reply says the events were replayed (no snapshot
    /// follows, so what the viewer holds stays valid).
    public static func resumed(_ line: ServerLine) -> Bool {
        guard case .reply(_, .success(let result)) = line else { return false }
        return result["resync"] == .bool(false)
    }
}
