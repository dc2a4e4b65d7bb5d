// SPDX-License-Identifier: Apache-2.0
/// The whole live state, as a new subscriber or `list` sees it.
public struct SchedulerSnapshot: Sendable, Hashable {
    public struct Stack: Sendable, Hashable {
        public var key: StackKey
        public var shown: Int
        public var queued: Int
        public var maxVisible: Int

        package init(key: StackKey, shown: Int, queued: Int, maxVisible: Int) {
            self.key = key
            self.shown = shown
            self.queued = queued
            self.maxVisible = maxVisible
        }
    }

    public var paused: Bool { pauseLevel > 0 }
    /// The level held (0: not paused).
    public var pauseLevel: Int
    public var modes: [String]
    /// The sequence number of the last event folded into this snapshot; live
    /// events that follow it start at `sequence + 1`.
    public var sequence: UInt64
    public var stacks: [Stack]
    public var toasts: [ToastRecord]

    package init(pauseLevel: Int, modes: [String], sequence: UInt64, stacks: [Stack], toasts: [ToastRecord]) {
        self.pauseLevel = pauseLevel
        self.modes = modes
        self.sequence = sequence
        self.stacks = stacks
        self.toasts = toasts
    }
}

/// Which toasts a subscriber or `list` wants: one scene and/or some roles.
public struct EventFilter: Sendable, Hashable {
    public var scene: String?
    public var roles: Set<ToastRole>?

    public init(scene: String? = nil, roles: Set<ToastRole>? = nil) {
        self.scene = scene
        self.roles = roles
    }

    public var isEmpty: Bool { scene == nil && roles == nil }

    package func matches(scene candidate: String) -> Bool { scene == nil || scene == candidate }

    public func matches(_ record: ToastRecord) -> Bool {
        matches(scene: record.toast.scene) && (roles?.contains(record.toast.role) ?? true)
    }

    /// Events about no toast (paused, resumed) reach every subscriber. A
    /// filter that takes everything does not read the event's record, which
    /// is a copy of it (for each subscriber of each event, in `EventRouter.route`).
    public func matches(_ event: ToastEvent) -> Bool {
        isEmpty || (event.record.map(matches) ?? true)
    }
}
