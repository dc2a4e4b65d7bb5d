// SPDX-License-Identifier: Apache-2.0
import CommandLineSupport
import ToastKit
import ToastProtocol

/// Lays out a scene's live stack on a terminal: the top stack from the top
/// edge down, the center HUDs in the middle, the bottom stack up from the
/// status line, which is the last row. A pure function of the model, the
/// terminal size and the time: golden tests pin it down.
public enum StackRenderer {
    public struct Options: Sendable {
        public var columns: Int
        public var rows: Int
        public var now: Int64
        /// Key hints on the status line and a highlighted target card.
        public var interactive: Bool

        public init(columns: Int, rows: Int, now: Int64, interactive: Bool = true) {
            self.columns = columns
            self.rows = rows
            self.now = now
            self.interactive = interactive
        }
    }

    /// Cards are at most this wide, centred on wider terminals.
    public static let maxCardWidth = 60

    public static func render(_ model: TailModel, _ options: Options) -> Screen {
        let columns = max(1, options.columns)
        let rows = max(1, options.rows)
        guard columns >= 12, rows >= 4 else {
            var lines = [ScreenLine([Span(DisplayWidth.truncate("toast-tail: too small", to: columns))])]
            lines += Array(repeating: ScreenLine(), count: rows - 1)
            return Screen(lines: lines)
        }
        let cardWidth = min(columns, maxCardWidth)
        let margin = String(repeating: " ", count: (columns - cardWidth) / 2)
        let target = options.interactive ? model.target?.id : nil

        typealias Card = (id: Int64, lines: [ScreenLine])
        func cards(_ toasts: [TailToast]) -> [Card] {
            toasts.map { toast in
                let lines = CardRenderer.render(toast, width: cardWidth, now: options.now, selected: toast.id == target)
                return (toast.id, lines.map { ScreenLine([Span(margin)] + $0.spans) })
            }
        }
        let order = model.displayOrder
        var top = cards(order.filter { $0.alignment == .top })
        var center = cards(order.filter { $0.alignment == .center })
        var bottom = cards(order.filter { $0.alignment == .bottom })

        // Too many cards for the screen: hide the oldest of the taller edge
        // stack first (the top stack's oldest is its first card, the bottom
        // stack's its last), then HUDs, and count them on the status line.
        // The selected card is never hidden: the keys act on what is seen.
        let available = rows - 1
        var hidden = 0
        func height(_ group: [Card]) -> Int { group.reduce(0) { $0 + $1.lines.count } }
        func removeOldest(_ group: inout [Card], oldestFirst: Bool) -> Bool {
            let indices = oldestFirst ? Array(group.indices) : group.indices.reversed()
            guard let index = indices.first(where: { group[$0].id != target }) else { return false }
            group.remove(at: index)
            return true
        }
        while height(top) + height(center) + height(bottom) > available {
            let removed =
                (height(top) >= height(bottom) && removeOldest(&top, oldestFirst: true))
                || removeOldest(&bottom, oldestFirst: false) || removeOldest(&top, oldestFirst: true)
                || (center.count > 1 && removeOldest(&center, oldestFirst: true))
            guard removed else {
                // One card taller than the screen: cut it.
                let keep = max(0, available - height(top) - height(bottom))
                center = center.map { ($0.id, Array($0.lines.prefix(keep))) }
                top = top.map { ($0.id, Array($0.lines.prefix(available))) }
                break
            }
            hidden += 1
        }

        var lines = Array(repeating: ScreenLine(), count: available)
        let topLines = Array(top.flatMap(\.lines).prefix(available))
        let centerLines = center.flatMap(\.lines)
        let bottomLines = Array(bottom.flatMap(\.lines).prefix(available - topLines.count))
        for (row, line) in topLines.enumerated() { lines[row] = line }
        let bottomStart = available - bottomLines.count
        for (offset, line) in bottomLines.enumerated() { lines[bottomStart + offset] = line }
        let centerStart = min(max(topLines.count, (available - centerLines.count) / 2), max(0, bottomStart - centerLines.count))
        for (offset, line) in centerLines.enumerated() where centerStart + offset < available {
            lines[centerStart + offset] = line
        }
        lines.append(statusLine(model, options, columns: columns, hidden: hidden))
        return Screen(lines: lines)
    }

    /// The stack as a list for printing once (`--once`): every shown card in
    /// display order, then the status line, with no screen to fill.
    public static func renderList(_ model: TailModel, columns: Int, now: Int64) -> [ScreenLine] {
        let options = Options(columns: max(12, columns), rows: 0, now: now, interactive: false)
        let width = min(options.columns, maxCardWidth)
        var lines = model.displayOrder.flatMap { CardRenderer.render($0, width: width, now: now, selected: false) }
        lines.append(statusLine(model, options, columns: options.columns, hidden: 0))
        return lines
    }

    /// The connection, do-not-disturb, the waiting toasts, and key hints or a notice.
    static func statusLine(_ model: TailModel, _ options: Options, columns: Int, hidden: Int) -> ScreenLine {
        var spans: [Span] = []
        switch model.link {
        case .connecting:
            spans.append(Span("○ connecting", Style(color: .yellow)))
        case .connected:
            spans.append(Span("● toastd", Style(color: .green)))
        case .disconnected(let why, let retryAt):
            var text = "✖ disconnected: \(why)"
            if let retryAt { text += ", retrying in \(max(0, (retryAt - options.now + 999) / 1000)) s" }
            spans.append(Span(text, Style(color: .red, bold: true)))
        }
        spans.append(Span(" " + DisplayWidth.truncate(Terminal.sanitize(model.scene), to: 16), Style(dim: true)))
        if model.paused { spans.append(Span("  ⏸ paused", Style(color: .yellow, bold: true))) }
        for alignment in ToastAlignment.allCases {
            let count = model.queuedCount(alignment)
            if count > 0 { spans.append(Span("  \(alignment.rawValue) +\(count) more")) }
        }
        if hidden > 0 { spans.append(Span("  \(hidden) off screen", Style(dim: true))) }

        var right: Span?
        if let notice = model.notice, notice.until > options.now {
            right = Span(notice.text, Style(color: .yellow))
        } else if options.interactive {
            let used = spans.reduce(0) { $0 + DisplayWidth.of($1.text) }
            let full = "↑↓ select  d dismiss  1-9 act  c clear  p pause  q quit"
            right = Span(columns - used - 2 >= DisplayWidth.of(full) ? full : "↑↓ d 1-9 c p q", Style(dim: true))
        }
        var line = ScreenLine()
        var used = 0
        for span in spans {
            let text = DisplayWidth.truncate(span.text, to: columns - used)
            guard !text.isEmpty else { break }
            line.spans.append(Span(text, span.style))
            used += DisplayWidth.of(text)
        }
        if let right, columns - used >= 8 {
            let text = DisplayWidth.truncate(right.text, to: columns - used - 2)
            let gap = columns - used - DisplayWidth.of(text)
            line.spans.append(Span(String(repeating: " ", count: gap)))
            line.spans.append(Span(text, right.style))
        }
        return line
    }

    /// Whether the picture changes with time alone: then a ticker redraws it.
    public static func animates(_ model: TailModel, now: Int64) -> Bool {
        if let notice = model.notice, notice.until > now { return true }
        if case .disconnected(_, let retryAt?) = model.link, retryAt > now { return true }
        return model.displayOrder.contains(where: CardRenderer.animates)
    }
}
