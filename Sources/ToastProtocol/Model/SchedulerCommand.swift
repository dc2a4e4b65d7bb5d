// SPDX-License-Identifier: Apache-2.0
/// What the scheduler can be asked to do.
public enum SchedulerCommand: Sendable, Hashable {
    /// Add a toast, or, if the same toast is live, update that one in place.
    case add(Toast)
    /// A rule dropped this toast: it gets an id and ends at once,
    /// `cancelled` with reason `dropped`, never shown (kept in history).
    case drop(Toast)
    /// Change fields of a live toast.
    case update(ToastTarget, ToastPatch)
    /// End a toast on behalf of a program.
    case remove(ToastTarget)
    /// End a toast on behalf of a person; refused for a non-dismissible toast.
    case dismiss(ToastTarget)
    /// Invoke one of a toast's actions, which then ends the toast.
    case invoke(ToastTarget, actionID: String)
    case clear(ClearScope)
    /// Do not disturb: show nothing new below `level` (the configured
    /// default when `nil`) until `resume`.
    case pause(level: Int?)
    case resume
    /// The level held by inhibitors (0: none held); the effective pause
    /// level is the higher of this and the paused level.
    case inhibit(level: Int)
    /// The active modes (rules match them); kept sorted and unique.
    case setModes([String])
    /// The source is gone: apply its toasts' cancellation and invalidation.
    case endSource(String)
    /// Only let time pass: expire what is due.
    case tick
}

/// The fields an `update` may change. A `nil` property leaves the field as
/// it is; for optional fields, `.some(nil)` resets it.
public struct ToastPatch: Sendable, Hashable {
    public var message: String?
    public var title: String??
    public var icon: String??
    public var role: ToastRole?
    /// `.some(nil)` goes back to the default duration.
    public var duration: ToastDuration??
    public var progress: ToastProgress?
    public var dismissible: Bool?
    public var closeButton: Bool?
    public var actions: [ToastAction]?
    /// `.some(nil)` removes it; so for the members below.
    public var markup: String??
    public var image: ToastImage??
    public var category: String??
    public var desktopEntry: String??
    public var urgency: ToastUrgency??
    public var soundName: String??

    public init(
        message: String? = nil,
        title: String?? = nil,
        icon: String?? = nil,
        role: ToastRole? = nil,
        duration: ToastDuration?? = nil,
        progress: ToastProgress? = nil,
        dismissible: Bool? = nil,
        closeButton: Bool? = nil,
        actions: [ToastAction]? = nil
    ) {
        self.message = message
        self.title = title
        self.icon = icon
        self.role = role
        self.duration = duration
        self.progress = progress
        self.dismissible = dismissible
        self.closeButton = closeButton
        self.actions = actions
    }

    public var isEmpty: Bool { self == ToastPatch() }

    /// The toast with this patch's changes.
    public func applied(to toast: Toast) -> Toast {
        var toast = toast
        if let message { toast.message = message }
        if let title { toast.title = title }
        if let icon { toast.icon = icon }
        if let role { toast.role = role }
        if let duration { toast.duration = duration }
        if let progress { toast.progress = progress }
        if let dismissible { toast.dismissible = dismissible }
        if let closeButton { toast.closeButton = closeButton }
        if let actions { toast.actions = actions }
        if let markup { toast.markup = markup }
        if let image { toast.image = image }
        if let category { toast.category = category }
        if let desktopEntry { toast.desktopEntry = desktopEntry }
        if let urgency { toast.urgency = urgency }
        if let soundName { toast.soundName = soundName }
        return toast
    }
}

/// Which toasts `clear` ends: a scene, one alignment, both, or everything.
public struct ClearScope: Sendable, Hashable {
    public var scene: String?
    public var alignment: ToastAlignment?
    /// Also end toasts that are not dismissible (a running task's HUD).
    public var force: Bool

    public init(scene: String? = nil, alignment: ToastAlignment? = nil, force: Bool = false) {
        self.scene = scene
        self.alignment = alignment
        self.force = force
    }

    package func contains(_ key: StackKey) -> Bool {
        (scene == nil || scene == key.scene) && (alignment == nil || alignment == key.alignment)
    }
}

/// The scheduler's answer to a command that succeeded.
public enum SchedulerReply: Sendable, Hashable {
    /// `add`: the toast, and whether it was the same toast added again.
    case added(ToastRecord, deduped: Bool, replaced: ToastID?)
    case updated(ToastRecord)
    /// `add` of a toast a rule dropped: the toast as it ended.
    case dropped(ToastRecord)
    /// `remove`, `dismiss`, `invoke`: the toast as it was when it ended.
    case ended(ToastRecord)
    /// `invoke` of a resident toast, which stays.
    case invoked(ToastRecord)
    case cleared(count: Int, kept: Int)
    /// `pause`, `resume`, `inhibit`: the level now held (0: not paused).
    case paused(level: Int)
    case modes([String])
    case sourceEnded(cancelled: Int, dismissed: Int)
    case ticked(expired: Int)
}

/// What the I/O layer must carry out after a command.
public enum SchedulerEffect: Sendable, Hashable {
    /// Send this event to every subscriber that wants it.
    case publish(ToastEvent)
    /// Call `tick` at this instant (replacing any timer armed before).
    case armTimer(at: ToastInstant)
    /// No toast is due to expire: disarm the timer.
    case disarmTimer
}

/// The result of one step: `(state, command, now) -> (state, reply, [effect])`.
public struct SchedulerTransition: Sendable, Hashable {
    public var reply: Result<SchedulerReply, ToastError>
    public var effects: [SchedulerEffect]

    package init(reply: Result<SchedulerReply, ToastError>, effects: [SchedulerEffect]) {
        self.reply = reply
        self.effects = effects
    }

    public var events: [ToastEvent] {
        effects.compactMap { effect in
            if case .publish(let event) = effect { return event }
            return nil
        }
    }
}
