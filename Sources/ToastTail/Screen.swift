// SPDX-License-Identifier: Apache-2.0
/// What the renderer draws: lines of styled spans. Text in a span is already
/// safe (sanitized) and measured; styles become SGR sequences only when
/// colour is on, so the plain text of a screen is what golden tests compare.
public struct Style: Hashable, Sendable {
    public enum Color: UInt8, Sendable {
        case red = 31, green = 32, yellow = 33, blue = 34, magenta = 35, cyan = 36, gray = 90
    }

    public var color: Color?
    public var bold = false
    public var dim = false
    public var reverse = false

    public init(color: Color? = nil, bold: Bool = false, dim: Bool = false, reverse: Bool = false) {
        self.color = color
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
    }

    public static let plain = Style()

    /// The SGR sequence that selects this style after a reset.
    var sgr: String {
        var codes: [String] = []
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if reverse { codes.append("7") }
        if let color { codes.append(String(color.rawValue)) }
        return codes.isEmpty ? "" : "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}

public struct Span: Hashable, Sendable {
    public var text: String
    public var style: Style

    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }
}

public struct ScreenLine: Hashable, Sendable {
    public var spans: [Span] = []

    public init(_ spans: [Span] = []) { self.spans = spans }

    public var text: String { spans.map(\.text).joined() }
    public var width: Int { spans.reduce(0) { $0 + DisplayWidth.of($1.text) } }

    mutating func append(_ text: String, _ style: Style = .plain) {
        spans.append(Span(text, style))
    }

    /// The line for a terminal: SGR around styled spans when `color` is on.
    public func encoded(color: Bool) -> String {
        guard color else { return text }
        var result = ""
        for span in spans {
            let sgr = span.style.sgr
            if sgr.isEmpty {
                result += span.text
            } else {
                result += sgr + span.text + "\u{1B}[0m"
            }
        }
        return result
    }
}

/// A whole frame: exactly `rows` lines, none wider than the terminal.
public struct Screen: Hashable, Sendable {
    public var lines: [ScreenLine]

    public init(lines: [ScreenLine]) { self.lines = lines }

    /// The frame as plain text, trailing spaces trimmed: what golden files hold.
    public var plainText: String {
        lines.map { line in
            var text = line.text
            while text.last == " " { text.removeLast() }
            return text
        }.joined(separator: "\n")
    }

    /// The bytes that bring a terminal showing `previous` to this frame:
    /// only changed rows are rewritten, inside a synchronized update.
    public func update(from previous: Screen?, color: Bool) -> String {
        var output = "\u{1B}[?2026h"
        for (row, line) in lines.enumerated() where previous == nil || row >= previous!.lines.count || previous!.lines[row] != line {
            output += "\u{1B}[\(row + 1);1H" + line.encoded(color: color) + "\u{1B}[K"
        }
        if let previous, previous.lines.count > lines.count {
            output += "\u{1B}[\(lines.count + 1);1H\u{1B}[J"
        }
        return output + "\u{1B}[?2026l"
    }
}
