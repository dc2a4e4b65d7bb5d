// SPDX-License-Identifier: Apache-2.0
/// What a terminal shows for a toast's icon: an emoji or a short symbol as
/// it is; a freedesktop icon name ("dialog-warning", "mail-unread") as a
/// glyph for its kind, never the name cut short; an image as a frame.
enum IconGlyph {
    static func of(icon: String?, hasImage: Bool) -> String? {
        guard let icon, !icon.isEmpty else { return hasImage ? "▣" : nil }
        guard isIconName(icon) else { return icon }
        for (prefix, glyph) in glyphs where icon.hasPrefix(prefix) { return glyph }
        return "◆"
    }

    /// An icon theme's name: lowercase ASCII words joined by `-`, `_` or `.`.
    static func isIconName(_ text: String) -> Bool {
        text.utf8.count > 2 && text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        } && text.contains(where: { $0 == "-" || $0 == "_" || $0 == "." || $0.isLetter })
    }

    /// The freedesktop icon naming spec's common families, first match wins.
    static let glyphs: [(String, String)] = [
        ("dialog-information", "ℹ"), ("dialog-warning", "⚠"), ("dialog-error", "✖"), ("dialog-question", "?"),
        ("dialog-password", "🔑"), ("emblem-ok", "✔"), ("emblem-important", "!"), ("security-", "🛡"),
        ("mail-", "✉"), ("battery-", "🔋"), ("audio-volume-muted", "🔇"), ("audio-volume", "🔊"), ("audio-", "♪"),
        ("media-", "▶"), ("network-", "⇅"), ("bluetooth", "ᛒ"), ("display-brightness", "☀"), ("weather-", "☁"),
        ("document-", "📄"), ("folder", "📁"), ("user-", "👤"), ("call-", "📞"), ("camera-", "📷"), ("input-", "⌨"),
        ("printer", "🖶"), ("software-update", "⟳"), ("system-", "⚙"), ("appointment", "📅"), ("x-office-calendar", "📅"),
    ]
}
