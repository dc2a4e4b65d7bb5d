/// A toast as its sender describes it: what to show, how long, where, and
/// how it relates to its sender. The scheduler wraps it in a `ToastRecord`
/// once it has an id.
public struct Toast: Sendable, Hashable {
    public var message: String
    public var title: String?
    /// An emoji or a short icon name.
    public var icon: String?
    public var role: ToastRole
    /// `nil` means "the default": `ToastDuration.defaultDuration`, or
    /// indefinite while the toast shows progress (the seeds' showProgress).
    public var duration: ToastDuration?
    public var alignment: ToastAlignment
    public var scene: String
    public var reuseID: String?
    public var progress: ToastProgress
    /// Whether a person may dismiss it (interactive dismissal).
    public var dismissible: Bool
    public var closeButton: Bool
    public var actions: [ToastAction]
    /// Who sent it. The daemon fills in the peer's process when it is absent.
    public var source: String?
    public var cancellation: CancellationPolicy
    public var invalidation: InvalidationOptions
    /// Invoking an action does not end it (freedesktop's `resident`).
    public var resident = false
    /// It is not kept in the history when it ends (freedesktop's `transient`).
    public var transient = false
    /// How important it is, 0 to 100: while paused at a level at or below
    /// it, it still shows. `nil`: its role's level (PROTOCOL.md, 5.8).
    public var level: Int?

    public static let defaultScene = "default"

    public init(
        message: String,
        title: String? = nil,
        icon: String? = nil,
        role: ToastRole = .plain,
        duration: ToastDuration? = nil,
        alignment: ToastAlignment = .top,
        scene: String = Toast.defaultScene,
        reuseID: String? = nil,
        progress: ToastProgress = .none,
        dismissible: Bool = true,
        closeButton: Bool = false,
        actions: [ToastAction] = [],
        source: String? = nil,
        cancellation: CancellationPolicy = .presentation,
        invalidation: InvalidationOptions = []
    ) {
        self.message = message
        self.title = title
        self.icon = icon
        self.role = role
        self.duration = duration
        self.alignment = alignment
        self.scene = scene
        self.reuseID = reuseID
        self.progress = progress
        self.dismissible = dismissible
        self.closeButton = closeButton
        self.actions = actions
        self.source = source
        self.cancellation = cancellation
        self.invalidation = invalidation
    }

    /// How long the toast stays once presented, in milliseconds; `nil` for
    /// "until removed".
    public var effectiveLifetime: Int64? { Self.lifetime(duration: duration, showsProgress: progress != .none) }

    /// The lifetime of a toast with this duration: a toast that names none
    /// lives the default duration, unless it shows progress (a HUD stays
    /// until its task ends).
    public static func lifetime(duration: ToastDuration?, showsProgress: Bool) -> Int64? {
        if let duration { return duration.milliseconds }
        return showsProgress ? nil : ToastDuration.defaultDuration.milliseconds
    }
}

public enum ToastRole: String, Sendable, Hashable, CaseIterable {
    case plain, info, success, warning, failure
}

public enum ToastAlignment: String, Sendable, Hashable, CaseIterable, Comparable {
    case top, center, bottom

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.order < rhs.order }

    private var order: Int {
        switch self {
        case .top: 0
        case .center: 1
        case .bottom: 2
        }
    }
}

public enum ToastDuration: Sendable, Hashable {
    case short
    case long
    case longer
    case seconds(Double)
    case indefinite

    /// The duration of a toast that names none and shows no progress.
    public static let defaultDuration = ToastDuration.long

    public var milliseconds: Int64? {
        switch self {
        case .short: 2_000
        case .long: 3_500
        case .longer: 5_000
        case .seconds(let seconds): Int64((seconds * 1000).rounded())
        case .indefinite: nil
        }
    }
}

public enum ToastProgress: Sendable, Hashable {
    case none
    /// A spinner.
    case indeterminate
    /// A bar, from 0 to 1.
    case fraction(Double)
}

public struct ToastAction: Sendable, Hashable {
    public var id: String
    public var label: String

    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// What happens to a source's toasts that are still waiting (SwiftToasts'
/// `ToastCancellation`).
public enum CancellationPolicy: String, Sendable, Hashable, CaseIterable {
    /// Never cancelled: the toast waits for its turn whatever its source does.
    case never
    /// Cancelled when its source ends.
    case presentation
    /// Cancelled when its source sends a newer toast, or ends.
    case always
}

/// What happens to a source's toasts that are already shown (SwiftToasts'
/// `ToastPresentationInvalidationOptions`).
public struct InvalidationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A newer toast from the same source dismisses this one.
    public static let contextChanged = InvalidationOptions(rawValue: 1 << 0)
    /// The end of the source dismisses this one.
    public static let presentationDismissed = InvalidationOptions(rawValue: 1 << 1)

    public static let named: [(name: String, option: InvalidationOptions)] = [
        ("contextChanged", .contextChanged),
        ("presentationDismissed", .presentationDismissed),
    ]

    public var names: [String] {
        Self.named.filter { contains($0.option) }.map(\.name)
    }
}

public typealias ToastID = UInt64

/// Names a live toast: by id, or by reuse identifier within a scene.
public enum ToastTarget: Sendable, Hashable {
    case id(ToastID)
    case reuseID(String, scene: String)
}
