// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// Draws one toast as a card, a pure function of the toast, the width and
/// the time:
///
///     ╭──────────────────────────────╮
///     │ ✔ 🚀 Build finished   ×3  ✕ │   role glyph, icon, bold title, repeat count, close mark
///     │ All 64 tests passed in 75 s. │   the message, wrapped
///     │ ██████████░░░░░░░░░░░░  45%  │   a bar for fractional progress (a spinner sits in the title line)
///     │ [1] Undo  [2] Open log       │   actions with their keys
///     ╰━━━━━━━━━━━━━━━━━━────────────╯   the countdown: the heavy part is the time left
///
/// A selected card has a double border.
public enum CardRenderer {
    /// Message lines shown at most; longer messages end in `…`.
    public static let maxMessageLines = 6

    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    public static func glyph(_ role: ToastRole) -> String {
        switch role {
        case .plain: "•"
        case .info: "ℹ"
        case .success: "✔"
        case .warning: "⚠"
        case .failure: "✖"
        }
    }

    public static func color(_ role: ToastRole) -> Style.Color? {
        switch role {
        case .plain: nil
        case .info: .blue
        case .success: .green
        case .warning: .yellow
        case .failure: .red
        }
    }

    /// Whether the card changes with time alone (a spinner or a countdown).
    public static func animates(_ toast: TailToast) -> Bool {
        toast.progress == .indeterminate || (toast.shown && toast.expiresAt != nil)
    }

    /// The card's lines, each exactly `width` columns (at least 8).
    public static func render(_ toast: TailToast, width: Int, now: Int64, selected: Bool) -> [ScreenLine] {
        let width = max(8, width)
        let inner = width - 4
        let roleStyle = Style(color: color(toast.role))
        let border = Style(color: color(toast.role), bold: selected)
        let edges: (topLeft: String, topRight: String, side: String, bottomLeft: String, bottomRight: String, fill: String) =
            selected ? ("╔", "╗", "║", "╚", "╝", "═") : ("╭", "╮", "│", "╰", "╯", "─")

        func body(_ spans: [Span]) -> ScreenLine {
            var line = ScreenLine([Span(edges.side + " ", border)])
            line.spans += spans
            let used = spans.reduce(0) { $0 + DisplayWidth.of($1.text) }
            line.append(String(repeating: " ", count: max(0, inner - used)) + " ")
            line.append(edges.side, border)
            return line
        }

        var lines = [ScreenLine([Span(edges.topLeft + String(repeating: edges.fill, count: width - 2) + edges.topRight, border)])]

        // The header: glyph, icon and title on the left; spinner, ×N and ✕ on the right.
        var badges: [Span] = []
        if toast.progress == .indeterminate {
            badges.append(Span(String(spinner[Int((now / 100) % Int64(spinner.count))]), roleStyle))
        }
        if toast.repeatCount > 1 { badges.append(Span("×\(toast.repeatCount)", Style(bold: true))) }
        if toast.closeButton { badges.append(Span("✕", Style(dim: true))) }
        var lead = glyph(toast.role) + " "
        if let icon = IconGlyph.of(icon: toast.icon, hasImage: toast.hasImage) {
            lead += DisplayWidth.truncate(icon, to: min(12, inner / 3)) + " "
        }
        var badgeWidth = badges.reduce(0) { $0 + DisplayWidth.of($1.text) + 1 }
        if DisplayWidth.of(lead) + badgeWidth + 1 > inner {
            badges = []  // a very narrow card keeps its text over its badges
            badgeWidth = 0
        }
        let headroom = max(1, inner - DisplayWidth.of(lead) - badgeWidth)

        var message = DisplayWidth.wrap(toast.message, to: inner)
        var header: [Span] = [Span(lead, roleStyle)]
        if let title = toast.title, !title.isEmpty {
            header.append(Span(DisplayWidth.truncate(title, to: headroom), Style(bold: true)))
        } else {
            // No title: the message starts on the header line.
            let first = DisplayWidth.wrap(toast.message, to: headroom)
            header.append(Span(first.first ?? ""))
            let rest = first.dropFirst().joined(separator: " ")
            message = rest.isEmpty ? [] : DisplayWidth.wrap(rest, to: inner)
        }
        if !badges.isEmpty {
            let used = header.reduce(0) { $0 + DisplayWidth.of($1.text) }
            header.append(Span(String(repeating: " ", count: max(1, inner - used - badgeWidth + 1))))
            for (index, badge) in badges.enumerated() {
                header.append(badge)
                if index < badges.count - 1 { header.append(Span(" ")) }
            }
        }
        lines.append(body(header))

        if message.count > maxMessageLines {
            message = Array(message.prefix(maxMessageLines))
            message[maxMessageLines - 1] = DisplayWidth.truncate(message[maxMessageLines - 1] + " …", to: inner)
        }
        for line in message { lines.append(body([Span(line)])) }

        if case .fraction(let value) = toast.progress {
            let percent = " \(Int((value * 100).rounded()))%"
            let barWidth = max(1, inner - 5)
            let filled = Int((value * Double(barWidth)).rounded())
            lines.append(body([
                Span(String(repeating: "█", count: filled), roleStyle),
                Span(String(repeating: "░", count: barWidth - filled), Style(dim: true)),
                Span(DisplayWidth.pad(percent, to: 5)),
            ]))
        }

        // The buttons with their keys, as many as fit, then "+N"; `default`
        // is the click on the body (Enter), never a button.
        let buttons = toast.buttons
        if !buttons.isEmpty || toast.hasDefaultAction {
            var spans: [Span] = []
            var used = 0
            for (index, action) in buttons.prefix(9).enumerated() {
                let key = "[\(index + 1)] "
                let gap = index == 0 ? 0 : 2
                let more = buttons.count - index - 1
                let reserve = more > 0 ? 4 + String(more).count : 0
                let room = inner - used - gap - DisplayWidth.of(key) - reserve
                guard room >= 2 else {
                    let rest = "+\(buttons.count - index)"
                    if inner - used - gap >= rest.count {
                        if gap > 0 { spans.append(Span("  ")) }
                        spans.append(Span(rest, Style(dim: true)))
                        used += gap + rest.count
                    }
                    break
                }
                let shown = DisplayWidth.truncate(action.label, to: room)
                if gap > 0 { spans.append(Span("  ")) }
                spans.append(Span(key, Style(color: .cyan, bold: true)))
                spans.append(Span(shown))
                used += gap + DisplayWidth.of(key) + DisplayWidth.of(shown)
            }
            if buttons.count > 9, inner - used >= 5 {
                spans.append(Span("  +\(buttons.count - 9)", Style(dim: true)))
                used += 4 + String(buttons.count - 9).count
            }
            if toast.hasDefaultAction, inner - used >= (used == 0 ? 7 : 9) {
                spans.append(Span((used == 0 ? "" : "  ") + "⏎ open", Style(dim: true)))
            }
            lines.append(body(spans))
        }

        // The bottom border doubles as the countdown of a timed toast.
        let run = width - 2
        if let remaining = toast.remaining(at: now) {
            let left = Int((remaining * Double(run)).rounded(.up))
            lines.append(ScreenLine([
                Span(edges.bottomLeft, border),
                Span(String(repeating: "━", count: left), roleStyle),
                Span(String(repeating: edges.fill, count: run - left), Style(dim: true)),
                Span(edges.bottomRight, border),
            ]))
        } else {
            lines.append(ScreenLine([Span(edges.bottomLeft + String(repeating: edges.fill, count: run) + edges.bottomRight, border)]))
        }
        return lines
    }
}
