// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// The scheduler's tunables. Every default is documented in
/// protocol/PROTOCOL.md ("Scheduling") and settable by a toastd flag.
public struct SchedulerConfiguration: Sendable, Hashable {
    /// Shown slots of a top stack. Further toasts wait in its FIFO queue.
    public var maxVisibleTop: Int
    /// Shown slots of a center stack (HUDs). 1 shows one HUD at a time.
    public var maxVisibleCenter: Int
    /// Shown slots of a bottom stack.
    public var maxVisibleBottom: Int
    /// Live toasts (shown or waiting) held at most, in all.
    public var maxToasts: Int
    /// Live toasts held at most for one source, so one flood cannot starve the others.
    public var maxToastsPerSource: Int

    /// Do not disturb by levels (dunst's pause levels): while paused at
    /// level L, a toast whose level is at least L still shows.
    public var pauseLevels = PauseLevels()

    public init(
        maxVisibleTop: Int = 3,
        maxVisibleCenter: Int = 1,
        maxVisibleBottom: Int = 3,
        maxToasts: Int = 100_000,
        maxToastsPerSource: Int = 10_000
    ) {
        // Out of bounds is a caller's bug: the flags and the file refuse such
        // values with a message (ToastLimits); nothing here clamps silently.
        precondition([maxVisibleTop, maxVisibleCenter, maxVisibleBottom].allSatisfy(ConfigurationLimits.maxVisible.contains), "maxVisible out of \(ConfigurationLimits.maxVisible)")
        precondition(ConfigurationLimits.maxToasts.contains(maxToasts) && ConfigurationLimits.maxToasts.contains(maxToastsPerSource), "maxToasts out of \(ConfigurationLimits.maxToasts)")
        self.maxVisibleTop = maxVisibleTop
        self.maxVisibleCenter = maxVisibleCenter
        self.maxVisibleBottom = maxVisibleBottom
        self.maxToasts = maxToasts
        self.maxToastsPerSource = maxToastsPerSource
    }

    /// The same number of slots for every alignment (1 reproduces SwiftToasts).
    public init(maxVisible: Int, maxToasts: Int = 100_000, maxToastsPerSource: Int = 10_000) {
        self.init(
            maxVisibleTop: maxVisible, maxVisibleCenter: maxVisible, maxVisibleBottom: maxVisible,
            maxToasts: maxToasts, maxToastsPerSource: maxToastsPerSource
        )
    }

    public func maxVisible(_ alignment: ToastAlignment) -> Int {
        switch alignment {
        case .top: maxVisibleTop
        case .center: maxVisibleCenter
        case .bottom: maxVisibleBottom
        }
    }

    /// A toast's level: its own, else its role's.
    public func level(of toast: Toast) -> Int { toast.level ?? pauseLevels.roles[toast.role] ?? 0 }
}
