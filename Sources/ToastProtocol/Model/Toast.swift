// SPDX-License-Identifier: Apache-2.0
/// A toast as its sender describes it: what to show, how long, where, and
/// how it relates to its sender. The scheduler wraps it in a `ToastRecord`
/// once it has an id.
///
/// A value, stored copy-on-write: its fields live in one shared box, and a
/// copy is a single retain until one of the copies changes. A toast is
/// copied into every event about it, the reply, the backlog, the history
/// and the durable batch; with the fields inline each copy retained and
/// released every string and array in it (callgrind over the ingest run:
/// about 500 retains and releases an add, most of them these).
public struct Toast: Sendable, Hashable {
    /// The fields themselves.
    package struct Fields: Sendable, Hashable {
        package var message: String
        package var title: String?
        package var icon: String?
        package var role: ToastRole
        package var duration: ToastDuration?
        package var alignment: ToastAlignment
        package var scene: String
        package var reuseID: String?
        package var progress: ToastProgress
        package var dismissible: Bool
        package var closeButton: Bool
        package var actions: [ToastAction]
        package var source: String?
        package var cancellation: CancellationPolicy
        package var invalidation: InvalidationOptions
        package var resident = false
        package var transient = false
        package var level: Int?
        package var markup: String?
        package var image: ToastImage?
        package var category: String?
        package var desktopEntry: String?
        package var urgency: ToastUrgency?
        package var soundName: String?
        package var dedupe = true
    }

    /// Shared by copies; changed only through a unique reference.
    private final class Storage: @unchecked Sendable {
        // Never accessed twice at once: a copy that changes is unique
        // first (`unique`). Without this, every read of a field paid a
        // dynamic exclusivity check (4% of the ingest run's instructions).
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    /// The fields, unshared first if another copy holds them.
    private var unique: Fields {
        get { storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    /// Changes the fields in place, unshared once for all of them (a
    /// packed record's unpacking sets every one).
    package mutating func withFields<Result, Failure: Error>(_ body: (inout Fields) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(&unique)
    }

    /// Reads the fields in one go: a packed record's packing reads every one,
    /// and a getter each, from another module, was a call and a retain each
    /// (about 50 an add).
    package func readFields<Result, Failure: Error>(_ body: (Fields) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(storage.fields)
    }

    public static func == (lhs: Toast, rhs: Toast) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

    public var message: String {
        get { storage.fields.message }
        set { unique.message = newValue }
    }
    public var title: String? {
        get { storage.fields.title }
        set { unique.title = newValue }
    }
    /// An emoji or a short icon name.
    public var icon: String? {
        get { storage.fields.icon }
        set { unique.icon = newValue }
    }
    public var role: ToastRole {
        get { storage.fields.role }
        set { unique.role = newValue }
    }
    /// `nil` means "the default": `ToastDuration.defaultDuration`, or
    /// indefinite while the toast shows progress (the seeds' showProgress).
    public var duration: ToastDuration? {
        get { storage.fields.duration }
        set { unique.duration = newValue }
    }
    public var alignment: ToastAlignment {
        get { storage.fields.alignment }
        set { unique.alignment = newValue }
    }
    public var scene: String {
        get { storage.fields.scene }
        set { unique.scene = newValue }
    }
    public var reuseID: String? {
        get { storage.fields.reuseID }
        set { unique.reuseID = newValue }
    }
    public var progress: ToastProgress {
        get { storage.fields.progress }
        set { unique.progress = newValue }
    }
    /// Whether a person may dismiss it (interactive dismissal).
    public var dismissible: Bool {
        get { storage.fields.dismissible }
        set { unique.dismissible = newValue }
    }
    public var closeButton: Bool {
        get { storage.fields.closeButton }
        set { unique.closeButton = newValue }
    }
    public var actions: [ToastAction] {
        get { storage.fields.actions }
        set { unique.actions = newValue }
        _modify { yield &unique.actions }
    }
    /// Who sent it. The daemon fills in the peer's process when it is absent.
    public var source: String? {
        get { storage.fields.source }
        set { unique.source = newValue }
    }
    public var cancellation: CancellationPolicy {
        get { storage.fields.cancellation }
        set { unique.cancellation = newValue }
    }
    public var invalidation: InvalidationOptions {
        get { storage.fields.invalidation }
        set { unique.invalidation = newValue }
    }
    /// Invoking an action does not end it (freedesktop's `resident`).
    public var resident: Bool {
        get { storage.fields.resident }
        set { unique.resident = newValue }
    }
    /// It is not kept in the history when it ends (freedesktop's `transient`).
    public var transient: Bool {
        get { storage.fields.transient }
        set { unique.transient = newValue }
    }
    /// How important it is, 0 to 100: while paused at a level at or below
    /// it, it still shows. `nil`: its role's level (PROTOCOL.md, 5.8).
    public var level: Int? {
        get { storage.fields.level }
        set { unique.level = newValue }
    }

    /// The message as its sender wrote it in markup (freedesktop's body:
    /// `b`, `i`, `u`, `a href` and `img alt` kept, everything else as text),
    /// for viewers that draw markup; `message` is its plain text.
    public var markup: String? {
        get { storage.fields.markup }
        set { unique.markup = newValue }
    }
    /// A picture beside the icon: an image file, or pixels the sender gave.
    public var image: ToastImage? {
        get { storage.fields.image }
        set { unique.image = newValue }
    }
    /// Freedesktop's `category` ("email.arrived", "device.added").
    public var category: String? {
        get { storage.fields.category }
        set { unique.category = newValue }
    }
    /// The sender's desktop file name, without `.desktop` (freedesktop's `desktop-entry`).
    public var desktopEntry: String? {
        get { storage.fields.desktopEntry }
        set { unique.desktopEntry = newValue }
    }
    /// Freedesktop's urgency, kept beside the role it gave.
    public var urgency: ToastUrgency? {
        get { storage.fields.urgency }
        set { unique.urgency = newValue }
    }
    /// A themed sound's name (freedesktop's `sound-name`), for a rule's command to play.
    public var soundName: String? {
        get { storage.fields.soundName }
        set { unique.soundName = newValue }
    }
    /// Whether an add with the same title and message from the same sender
    /// updates this toast (true, the default) or is a toast of its own. A
    /// reuse id dedupes either way. The freedesktop bridge sends `false`:
    /// every Notify without `replaces_id` is a notification of its own.
    public var dedupe: Bool {
        get { storage.fields.dedupe }
        set { unique.dedupe = newValue }
    }

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
        storage = Storage(
            Fields(
                message: message, title: title, icon: icon, role: role, duration: duration, alignment: alignment,
                scene: scene, reuseID: reuseID, progress: progress, dismissible: dismissible, closeButton: closeButton,
                actions: actions, source: source, cancellation: cancellation, invalidation: invalidation
            )
        )
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

    /// The role's place in `allCases`.
    package var caseIndex: Int {
        switch self {
        case .plain: 0
        case .info: 1
        case .success: 2
        case .warning: 3
        case .failure: 4
        }
    }
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
