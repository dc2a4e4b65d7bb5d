import CommandLineSupport
import ToastKit
import ToastCore

/// One toast as a viewer sees it, read leniently from the wire (a newer
/// daemon may add members). Its text is sanitized here, once, so nothing
/// downstream can print a control character.
public struct TailToast: Sendable, Hashable, Identifiable {
    public enum Progress: Sendable, Hashable {
        case none, indeterminate, fraction(Double)
    }

    public struct Action: Sendable, Hashable {
        public var id: String
        public var label: String
    }

    public var id: Int64
    public var title: String?
    public var message: String
    public var icon: String?
    public var role: ToastRole
    public var alignment: ToastAlignment
    public var scene: String
    public var shown: Bool
    public var dismissible: Bool
    public var closeButton: Bool
    public var actions: [Action]
    public var repeatCount: Int
    public var progress: Progress
    /// When it expires and how long its lifetime is, for the countdown (ms, daemon clock).
    public var expiresAt: Int64?
    public var lifetime: Int64?

    public init?(_ json: JSONValue) {
        guard let id = json["id"]?.intValue, let message = json["message"]?.stringValue else { return nil }
        self.id = id
        self.message = Terminal.sanitize(message)
        title = json["title"]?.stringValue.map(Terminal.sanitize)
        icon = json["icon"]?.stringValue.map(Terminal.sanitize)
        role = json["role"]?.stringValue.flatMap(ToastRole.init(rawValue:)) ?? .plain
        alignment = json["alignment"]?.stringValue.flatMap(ToastAlignment.init(rawValue:)) ?? .top
        scene = json["scene"]?.stringValue ?? "default"
        shown = json["state"]?.stringValue == "shown"
        dismissible = json["dismissible"]?.boolValue ?? true
        closeButton = json["closeButton"]?.boolValue ?? false
        if case .array(let actions)? = json["actions"] {
            self.actions = actions.compactMap { action in
                guard let id = action["id"]?.stringValue else { return nil }
                return Action(id: id, label: Terminal.sanitize(action["label"]?.stringValue ?? id))
            }
        } else {
            actions = []
        }
        repeatCount = Int(json["repeat"]?.intValue ?? 1)
        switch json["progress"] {
        case .string("indeterminate")?: progress = .indeterminate
        case let value? where value.doubleValue != nil: progress = .fraction(min(1, max(0, value.doubleValue!)))
        default: progress = .none
        }
        expiresAt = json["expiresAt"]?.intValue
        lifetime = Self.lifetime(json["duration"], progress: progress)
    }

    /// The scheduler's own rule (`Toast.lifetime`), on the duration as the
    /// wire spells it.
    static func lifetime(_ duration: JSONValue?, progress: Progress) -> Int64? {
        let duration = (try? WireDecoder.decodeDuration(duration, field: "duration")) ?? nil
        return Toast.lifetime(duration: duration, showsProgress: progress != .none)
    }

    /// The share of its lifetime left at `now`, from 1 down to 0; nil when it does not expire.
    public func remaining(at now: Int64) -> Double? {
        guard shown, let expiresAt, let lifetime, lifetime > 0 else { return nil }
        return min(1, max(0, Double(expiresAt - now) / Double(lifetime)))
    }
}

/// The viewer's picture of one scene, kept current by applying events.
/// Pure: no I/O and no clock, so the renderer's golden tests can build any
/// state from events.
public struct TailModel: Sendable {
    public enum Link: Sendable, Hashable {
        case connecting
        case connected
        /// Disconnected, with why, and the daemon-clock time of the next attempt.
        case disconnected(String, retryAt: Int64?)
    }

    public struct Notice: Sendable, Hashable {
        public var text: String
        public var until: Int64
    }

    public let scene: String
    public var link: Link = .connecting
    public private(set) var paused = false
    public private(set) var toasts: [Int64: TailToast] = [:]
    /// Shown toasts of each stack, in the order they were shown (newest last).
    public private(set) var shown: [ToastAlignment: [Int64]] = [:]
    /// Waiting toasts of each stack.
    public private(set) var queued: [ToastAlignment: Set<Int64>] = [:]
    /// The selected toast, for the keys that act on one.
    public private(set) var selected: Int64?
    /// A short message on the status line, such as why a dismiss was refused.
    public var notice: Notice?

    public init(scene: String = "default") {
        self.scene = scene
    }

    /// Applies one event from toastd; ignores what it does not know.
    public mutating func apply(_ event: JSONValue) {
        guard let name = event["event"]?.stringValue else { return }
        switch name {
        case "snapshot":
            toasts = [:]
            shown = [:]
            queued = [:]
            paused = event["paused"]?.boolValue ?? false
            if case .array(let list)? = event["toasts"] {
                for json in list { if let toast = TailToast(json) { insert(toast) } }
            }
            link = .connected
        case "queued", "presented":
            guard let toast = event["toast"].flatMap(TailToast.init), toast.scene == scene else { return }
            remove(toast.id)
            insert(toast)
        case "updated":
            guard let toast = event["toast"].flatMap(TailToast.init), let old = toasts[toast.id] else { return }
            toasts[toast.id] = toast
            if toast.shown && toast.repeatCount > old.repeatCount {
                // The same toast added again moves to the newest place of its stack.
                shown[toast.alignment]?.removeAll { $0 == toast.id }
                shown[toast.alignment, default: []].append(toast.id)
            }
        case "dismissed", "cancelled":
            if let id = event["toast"]?["id"]?.intValue { remove(id) }
        case "paused":
            paused = true
        case "resumed":
            paused = false
        case "shutdown":
            link = .disconnected("toastd stopped", retryAt: nil)
        default:
            break
        }
        if let selected, toasts[selected]?.shown != true { self.selected = nil }
    }

    private mutating func insert(_ toast: TailToast) {
        guard toast.scene == scene else { return }
        toasts[toast.id] = toast
        if toast.shown {
            shown[toast.alignment, default: []].append(toast.id)
        } else {
            queued[toast.alignment, default: []].insert(toast.id)
        }
    }

    private mutating func remove(_ id: Int64) {
        guard let toast = toasts.removeValue(forKey: id) else { return }
        shown[toast.alignment]?.removeAll { $0 == id }
        queued[toast.alignment]?.remove(id)
    }

    /// The shown toasts as drawn from the top of the screen down: the top
    /// stack grows down from the top edge and the bottom stack up from the
    /// bottom edge, so in both the newest toast is the one nearest the middle
    /// (where YSnackbar pushes a new or repeated snack).
    public var displayOrder: [TailToast] {
        let top = shown[.top] ?? []
        let center = shown[.center] ?? []
        let bottom = (shown[.bottom] ?? []).reversed()
        return (top + center + bottom).compactMap { toasts[$0] }
    }

    public func queuedCount(_ alignment: ToastAlignment) -> Int { queued[alignment]?.count ?? 0 }

    /// The toast the keys act on: the selection, else the first card on screen.
    public var target: TailToast? {
        if let selected, let toast = toasts[selected] { return toast }
        return displayOrder.first
    }

    /// Moves the selection by `step` cards in display order.
    public mutating func moveSelection(by step: Int) {
        let order = displayOrder.map(\.id)
        guard !order.isEmpty else { return }
        let current = target.flatMap { toast in order.firstIndex(of: toast.id) } ?? 0
        selected = order[min(order.count - 1, max(0, current + step))]
    }
}
