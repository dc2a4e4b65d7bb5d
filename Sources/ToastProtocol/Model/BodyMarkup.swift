// SPDX-License-Identifier: Apache-2.0
/// A freedesktop body (and a toast's `markup`) read as the spec's markup, tolerantly: the tags it
/// names (`b`, `i`, `u`, `a`, `img`, in any case, with attributes in single
/// or double quotes) and entities (`&amp;`, `&#60;`, `&#x3C;`, ...) are
/// recognized; anything else, a lone `<` or `&` included, is text. A tag is
/// at most 1 KiB; a longer one is text too, so a body costs one pass.
public enum BodyMarkup {
    public enum Token: Equatable, Sendable {
        case text(String)
        /// `href` for an `a`, `alt` for an `img`, their entities decoded.
        case open(name: String, href: String?, alt: String?)
        case close(String)
    }

    public static let tags: Set<String> = ["b", "i", "u", "a", "img"]
    static let maxTag = 1_024

    public static func tokens(_ body: String) -> [Token] {
        let scalars = Array(body.unicodeScalars)
        var tokens: [Token] = []
        var text = String.UnicodeScalarView()
        func flush() {
            if !text.isEmpty { tokens.append(.text(String(text))) }
            text = String.UnicodeScalarView()
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", let (token, next) = tag(scalars, from: index) {
                flush()
                tokens.append(token)
                index = next
            } else if scalar == "&", let (decoded, next) = entity(scalars, from: index) {
                text.append(contentsOf: decoded.unicodeScalars)
                index = next
            } else {
                text.append(scalar)
                index += 1
            }
        }
        flush()
        return tokens
    }

    /// A tag of the spec's at `start` (its `<`), and where it ends.
    private static func tag(_ scalars: [Unicode.Scalar], from start: Int) -> (Token, Int)? {
        var index = start + 1
        let end = min(scalars.count, start + maxTag)
        func skipSpace() { while index < end, scalars[index].properties.isWhitespace { index += 1 } }
        let closing = index < end && scalars[index] == "/"
        if closing { index += 1 }
        var name = ""
        while index < end, scalars[index].isASCII, scalars[index].properties.isAlphabetic {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        name = name.lowercased()
        guard tags.contains(name) else { return nil }
        var attributes: [String: String] = [:]
        while true {
            let before = index
            skipSpace()
            guard index < end else { return nil }
            let scalar = scalars[index]
            if scalar == ">" { return (token(name, closing, attributes), index + 1) }
            if scalar == "/", index + 1 < end, scalars[index + 1] == ">", !closing {
                return (token(name, closing, attributes), index + 2)
            }
            // An attribute needs the space before it, and a closing tag has none.
            guard !closing, index > before else { return nil }
            var key = ""
            while index < end, scalars[index] != "=", scalars[index] != ">", scalars[index] != "<",
                !scalars[index].properties.isWhitespace, scalars[index] != "/"
            {
                key.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard !key.isEmpty else { return nil }
            skipSpace()
            guard index < end, scalars[index] == "=" else {
                attributes[key.lowercased()] = ""
                continue
            }
            index += 1
            skipSpace()
            guard index < end, scalars[index] == "\"" || scalars[index] == "'" else { return nil }
            let quote = scalars[index]
            index += 1
            var raw = String.UnicodeScalarView()
            while index < end, scalars[index] != quote {
                if scalars[index] == "<" { return nil }
                raw.append(scalars[index])
                index += 1
            }
            guard index < end else { return nil }
            index += 1
            attributes[key.lowercased()] = decodeEntities(String(raw))
        }
    }

    private static func token(_ name: String, _ closing: Bool, _ attributes: [String: String]) -> Token {
        if closing { return .close(name) }
        if name == "img" { return .open(name: name, href: nil, alt: attributes["alt"]) }
        return .open(name: name, href: name == "a" ? attributes["href"] : nil, alt: nil)
    }

    /// An entity at `start` (its `&`): `&name;` of the five XML names, or a
    /// decimal or hex character reference; nil for anything else.
    private static func entity(_ scalars: [Unicode.Scalar], from start: Int) -> (String, Int)? {
        var index = start + 1
        var name = ""
        while index < scalars.count, index - start <= 10, scalars[index] != ";" {
            let scalar = scalars[index]
            guard scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "#" else { return nil }
            name.unicodeScalars.append(scalar)
            index += 1
        }
        guard index < scalars.count, scalars[index] == ";", !name.isEmpty else { return nil }
        switch name {
        case "amp": return ("&", index + 1)
        case "lt": return ("<", index + 1)
        case "gt": return (">", index + 1)
        case "quot": return ("\"", index + 1)
        case "apos": return ("'", index + 1)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return (String(Character(scalar)), index + 1)
        }
    }

    public static func decodeEntities(_ text: String) -> String {
        tokens(text).map { token in
            if case .text(let text) = token { return text }
            return ""
        }.joined()
    }

    /// Text as markup: `&`, `<`, `>` and quotes escaped, so that it reads back as itself.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
