// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// A toast's `markup` (freedesktop body markup: `b`, `i`, `u`, `a`, `img`)
/// as Pango markup: only those tags, each closed in order, links drawn
/// underlined, images as their `alt` text, every other character escaped.
/// The markup is untrusted (any client can send it): nothing in it reaches
/// Pango but these tags and escaped text, and the C side checks the result
/// parses before using it, falling back to the plain `message`.
public enum PangoMarkup {
    public static func from(_ markup: String) -> String {
        var out = ""
        var open: [String] = []
        for token in BodyMarkup.tokens(markup) {
            switch token {
            case .text(let text):
                out += escaped(text)
            case .open(let name, _, let alt):
                switch name {
                case "b", "i", "u":
                    out += "<\(name)>"
                    open.append(name)
                case "a":
                    out += "<span underline=\"single\">"
                    open.append("span")
                case "img":
                    if let alt { out += escaped(alt) }
                default:
                    break
                }
            case .close(let name):
                let tag = name == "a" ? "span" : name
                // A close for a tag that is open closes it (and any opened after it); a stray one is dropped.
                guard let index = open.lastIndex(of: tag) else { continue }
                for inner in open[index...].reversed() { out += "</\(inner)>" }
                open.removeSubrange(index...)
            }
        }
        for tag in open.reversed() { out += "</\(tag)>" }
        return out
    }

    static func escaped(_ text: String) -> String { BodyMarkup.escape(OverlayModel.drawable(text)) }
}
