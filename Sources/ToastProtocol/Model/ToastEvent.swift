// SPDX-License-Identifier: Apache-2.0
/// Milliseconds on the scheduler's clock. The daemon feeds it a monotonic
/// clock anchored at the Unix epoch, so values read as wall-clock times but
/// never go backwards; tests feed a virtual clock starting at 0.
public typealias ToastInstant = Int64

/// A toast the scheduler holds, with its id and where it is in its life.
public struct ToastRecord: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        case queued, shown
    }

    public let id: ToastID
    public package(set) var toast: Toast
    public package(set) var state: State
    /// How many times the same toast was added (×N); 1 for a fresh toast.
    public package(set) var repeatCount: Int
    public let createdAt: ToastInstant
    public package(set) var presentedAt: ToastInstant?
    /// When it expires, while shown with a finite lifetime.
    public package(set) var expiresAt: ToastInstant?
    /// Its place in its stack: the sequence number of the event that put it
    /// there (queued, presented, or a dedupe that moved it to the newest
    /// place). Not on the wire; durable state restores stacks in this order.
    public package(set) var placement: UInt64 = 0

    public init(
        id: ToastID, toast: Toast, state: State, repeatCount: Int, createdAt: ToastInstant,
        presentedAt: ToastInstant? = nil, expiresAt: ToastInstant? = nil, placement: UInt64 = 0
    ) {
        self.id = id
        self.toast = toast
        self.state = state
        self.repeatCount = repeatCount
        self.createdAt = createdAt
        self.presentedAt = presentedAt
        self.expiresAt = expiresAt
        self.placement = placement
    }

    public var stack: StackKey { StackKey(scene: toast.scene, alignment: toast.alignment) }
}

/// One stack of a scene: its shown toasts and its waiting queue.
public struct StackKey: Sendable, Hashable, Comparable {
    public var scene: String
    public var alignment: ToastAlignment

    public init(scene: String, alignment: ToastAlignment) {
        self.scene = scene
        self.alignment = alignment
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.scene != rhs.scene { return lhs.scene.utf8.lexicographicallyPrecedes(rhs.scene.utf8) }
        return lhs.alignment < rhs.alignment
    }
}

/// Why a shown toast went away.
public enum DismissReason: String, Sendable, Hashable, CaseIterable {
    /// Its lifetime ran out.
    case expired
    /// A person dismissed it (`dismiss`).
    case user
    /// Its sender or a script removed it (`remove`).
    case removed
    /// One of its actions was invoked.
    case action
    /// Its source's context changed or ended (invalidation options).
    case invalidated
    /// `clear` took it.
    case cleared
    /// A toast with the same identity but another alignment took its place.
    case replaced
}

/// Why a toast that was never shown went away.
public enum CancelReason: String, Sendable, Hashable, CaseIterable {
    /// Its source sent a newer toast (cancellation `always`).
    case superseded
    /// Its source added a newer toast before it could be shown, and it asked
    /// for `contextChanged`: showing it would show a stale context.
    case invalidated
    /// Its source ended (cancellation `presentation` or `always`).
    case sourceEnded
    case removed
    case user
    case action
    case cleared
    case replaced
    /// A rule of the configuration dropped it on its way in.
    case dropped
}

/// Something that happened, to be published to subscribers.
public struct ToastEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The toast entered and waits for a free slot.
        case queued(ToastRecord)
        /// The toast is shown (either at once on entry, or after waiting).
        case presented(ToastRecord)
        /// The toast changed in place: an update, or the same toast added again.
        case updated(ToastRecord)
        /// A shown toast ended.
        case dismissed(ToastRecord, DismissReason)
        /// A toast that was never shown ended.
        case cancelled(ToastRecord, CancelReason)
        /// One of the toast's actions was invoked; `dismissed` or `cancelled` follows.
        case action(ToastRecord, actionID: String)
        /// Do not disturb began, or its level changed.
        case paused(level: Int)
        case resumed
        /// The active modes changed.
        case modes([String])
    }

    /// Global, strictly increasing, starting at 1.
    public let seq: UInt64
    public let time: ToastInstant
    public let kind: Kind

    public init(seq: UInt64, time: ToastInstant, kind: Kind) {
        self.seq = seq
        self.time = time
        self.kind = kind
    }

    public var name: String {
        switch kind {
        case .queued: "queued"
        case .presented: "presented"
        case .updated: "updated"
        case .dismissed: "dismissed"
        case .cancelled: "cancelled"
        case .action: "action"
        case .paused: "paused"
        case .resumed: "resumed"
        case .modes: "modes"
        }
    }

    /// The toast the event is about, if any.
    public var record: ToastRecord? {
        switch kind {
        case .queued(let record), .presented(let record), .updated(let record), .dismissed(let record, _),
            .cancelled(let record, _), .action(let record, _):
            record
        case .paused, .resumed, .modes:
            nil
        }
    }

    /// Whether this event ends its toast's life.
    public var isEnd: Bool {
        switch kind {
        case .dismissed, .cancelled: true
        default: false
        }
    }
}
