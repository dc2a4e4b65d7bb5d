// SPDX-License-Identifier: Apache-2.0
import CUtf8proc

/// How many terminal columns text takes, measured per grapheme cluster the
/// way terminals lay it out: East Asian wide and emoji-presentation
/// characters take two columns, combining marks and other zero-width
/// characters none.
public enum DisplayWidth {
    /// The columns one character takes: 0, 1 or 2.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }  // ASCII fast path
        // An emoji sequence (VS16, ZWJ sequence, flag, keycap) is drawn two columns wide.
        if scalars.count > 1 && scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if (0x1F1E6...0x1F1FF).contains(first.value) && scalars.count == 2 { return 2 }  // a flag
        return width(of: first)
    }

    /// The columns a string takes.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// A code point's columns, by utf8proc (`utf8proc_charwidth`: the
    /// Unicode data's East Asian Width and emoji presentation, zero for
    /// marks, format characters and controls). It replaced a table copied
    /// by hand from Unicode 15; docs/BENCHMARKS.md has both measured.
    static func width(of scalar: Unicode.Scalar) -> Int {
        Int(utf8proc_charwidth(Int32(bitPattern: scalar.value)))
    }

    /// The longest prefix of `text` that fits in `columns`, with `…` in
    /// place of what was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard of(text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let width = of(character)
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// Pads `text` with spaces to exactly `columns` (it must already fit).
    public static func pad(_ text: String, to columns: Int) -> String {
        let width = of(text)
        return width >= columns ? text : text + String(repeating: " ", count: columns - width)
    }

    /// Word-wraps `text` into lines of at most `columns`. Words longer than
    /// a line are broken between characters, so no input can overflow.
    public static func wrap(_ text: String, to columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            var wordWidth = of(word)
            if lineWidth > 0 && lineWidth + 1 + wordWidth <= columns {
                line += " " + word
                lineWidth += 1 + wordWidth
                continue
            }
            if lineWidth > 0 {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            while wordWidth > columns {
                // Break an over-long word at the last character that fits.
                var piece = ""
                var pieceWidth = 0
                var index = word.startIndex
                while index < word.endIndex {
                    let width = of(word[index])
                    if pieceWidth + width > columns { break }
                    piece.append(word[index])
                    pieceWidth += width
                    index = word.index(after: index)
                }
                if index == word.startIndex { index = word.index(after: index) }  // a 2-column character in 1 column
                lines.append(piece)
                word = word[index...]
                wordWidth = of(word)
            }
            line = String(word)
            lineWidth = wordWidth
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }
}
