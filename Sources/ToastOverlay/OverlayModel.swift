// SPDX-License-Identifier: Apache-2.0
import ToastKit
import ToastProtocol

/// What toast-overlay shows: the scene's shown toasts, by stack, as the
/// stream from toastd says. Pure: it decides nothing the daemon decides
/// (no queue, no expiry), it only follows the lines.
public struct OverlayModel: Sendable {
    public let scene: String
    private(set) var shown: [ToastID: ToastRecord] = [:]
    /// When each was shown, as the stream tells it: a record on the wire
    /// carries no place in its stack, so the order is the model's own (a
    /// snapshot lists each stack oldest first; a presented toast is the newest).
    private var shownAt: [ToastID: Int] = [:]
    private var nextShown = 0

    public init(scene: String) {
        self.scene = scene
    }

    /// Applies a line; the stacks it changed.
    public mutating func apply(_ line: ServerLine) -> Set<ToastAlignment> {
        switch line {
        case .snapshot(let snapshot):
            let before = Set(shown.values.map(\.toast.alignment))
            shown = [:]
            shownAt = [:]
            for record in snapshot.snapshot.toasts where record.state == .shown && record.toast.scene == scene {
                shown[record.id] = record
                shownAt[record.id] = nextShown
                nextShown += 1
            }
            return before.union(shown.values.map(\.toast.alignment))
        case .event(let event):
            guard let record = event.record, record.toast.scene == scene else { return [] }
            let previous = shown[record.id]?.toast.alignment
            switch event.kind {
            case .presented(let record):
                shown[record.id] = record
                shownAt[record.id] = nextShown
                nextShown += 1
            case .updated(let record), .queued(let record):
                shown[record.id] = record.state == .shown ? record : nil
                if record.state != .shown { shownAt[record.id] = nil }
            case .dismissed, .cancelled:
                shown[record.id] = nil
                shownAt[record.id] = nil
            case .action, .paused, .resumed, .modes:
                return []
            }
            return Set([previous, record.toast.alignment].compactMap { $0 })
        case .reply, .lagged, .shutdown, .unknown:
            return []
        }
    }

    /// A shown toast.
    public func record(_ id: ToastID) -> ToastRecord? { shown[id] }

    /// A stack's toasts in the order they are drawn, top to bottom: the
    /// newest nearest the middle of the screen (last in the top stack,
    /// first in the bottom one).
    public func stack(_ alignment: ToastAlignment) -> [ToastRecord] {
        let records = shown.values.filter { $0.toast.alignment == alignment }
            .sorted { (shownAt[$0.id] ?? 0, $0.id) < (shownAt[$1.id] ?? 0, $1.id) }
        return alignment == .bottom ? records.reversed() : records
    }

    /// A role's colour (0xRRGGBB) and glyph.
    public static func style(of role: ToastRole) -> (color: UInt32, glyph: String) {
        switch role {
        case .plain: (0x42_42_42, "•")
        case .info: (0x1E_63_B4, "ℹ")
        case .success: (0x21_8C_21, "✔")
        case .warning: (0xC2_7C_0E, "⚠")
        case .failure: (0xB3_26_1E, "✖")
        }
    }

    /// Text as the overlay draws it: plain (never read as markup), without
    /// control characters but the line breaks.
    public static func drawable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { scalar in
            scalar == "\n" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }))
    }
}
