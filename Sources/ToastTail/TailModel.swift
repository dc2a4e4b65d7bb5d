// SPDX-License-Identifier: Apache-2.0
import CommandLineSupport
import ToastKit
import ToastProtocol

/// One toast as a viewer sees it. Its text is sanitized here, once, so
/// nothing downstream can print a control character.
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
    /// It has a picture (drawn as a frame: a terminal shows no pixels).
    public var hasImage = false
    public var repeatCount: Int
    public var progress: Progress
    /// When it expires and how long its lifetime is, for the countdown (ms, daemon clock).
    public var expiresAt: Int64?
    public var lifetime: Int64?

    /// A toast as the daemon sent it (decoded once, `ServerLine`), its text sanitized.
    public init(_ record: ToastRecord) {
        let toast = record.toast
        id = Int64(record.id)
        message = Terminal.sanitize(toast.message)
        title = toast.title.map(Terminal.sanitize)
        icon = toast.icon.map(Terminal.sanitize)
        role = toast.role
        alignment = toast.alignment
        scene = toast.scene
        shown = record.state == .shown
        dismissible = toast.dismissible
        closeButton = toast.closeButton
        actions = toast.actions.map { Action(id: $0.id, label: Terminal.sanitize($0.label)) }
        hasImage = toast.image != nil
        repeatCount = record.repeatCount
        switch toast.progress {
        case .none: progress = .none
        case .indeterminate: progress = .indeterminate
        case .fraction(let value): progress = .fraction(min(1, max(0, value)))
        }
        expiresAt = record.expiresAt
        lifetime = toast.effectiveLifetime
    }

    /// The action a click on the body invokes (freedesktop's key).
    public static let bodyAction = "default"

    /// Its actions that are buttons: all but the body's click.
    public var buttons: [Action] { actions.filter { $0.id != Self.bodyAction } }
    public var hasDefaultAction: Bool { actions.contains { $0.id == Self.bodyAction } }

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

    /// Applies a line as the wire has it (decoded once into a `ServerLine`);
    /// ignores a line that does not decode.
    public mutating func apply(_ json: JSONValue) {
        if let line = try? WireDecoder.decodeServerLine(json) { apply(line) }
    }

    /// Applies one line from toastd; ignores what it does not know.
    public mutating func apply(_ line: ServerLine) {
        switch line {
        case .snapshot(let snapshot):
            toasts = [:]
            shown = [:]
            queued = [:]
            paused = snapshot.snapshot.paused
            for record in snapshot.snapshot.toasts { insert(TailToast(record)) }
            link = .connected
        case .event(let event):
            apply(event)
        case .shutdown:
            link = .disconnected("toastd stopped", retryAt: nil)
        case .reply, .lagged, .unknown:
            break
        }
        if let selected, toasts[selected]?.shown != true { self.selected = nil }
    }

    private mutating func apply(_ event: ToastEvent) {
        switch event.kind {
        case .queued(let record), .presented(let record):
            let toast = TailToast(record)
            guard toast.scene == scene else { return }
            remove(toast.id)
            insert(toast)
        case .updated(let record):
            let toast = TailToast(record)
            guard let old = toasts[toast.id] else { return }
            toasts[toast.id] = toast
            if toast.shown && toast.repeatCount > old.repeatCount {
                // The same toast added again moves to the newest place of its stack.
                shown[toast.alignment]?.removeAll { $0 == toast.id }
                shown[toast.alignment, default: []].append(toast.id)
            }
        case .dismissed(let record, _), .cancelled(let record, _):
            remove(Int64(record.id))
        case .paused:
            paused = true
        case .resumed:
            paused = false
        case .action, .modes:
            break
        }
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
