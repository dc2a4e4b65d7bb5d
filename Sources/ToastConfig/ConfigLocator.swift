// SPDX-License-Identifier: Apache-2.0
/// Finds where a key was written in a TOML file, for error messages.
///
/// toml++ reports the line and column of a syntax error, but the values
/// `ConfigDocument` hands over carry no positions. So for a value that parses but means nothing to
/// toastd (`role = "failur"`), this reads the text once more: it follows
/// the table headers (`[roles.failure]`, the third `[[rule]]`) and finds the
/// key in that table, inside an inline table when the path goes there.
/// When it cannot tell, it points at the table's header.
struct ConfigLocator {
    struct Position: Sendable, Hashable {
        var line: Int
        var column: Int
    }

    /// One table: where its header is, and its lines up to the next header.
    private struct Section {
        var name: String
        var header: Position
        var lines: [(number: Int, text: Substring)]
    }

    private var sections: [Section] = []

    init(_ text: String) {
        var current = Section(name: "", header: Position(line: 1, column: 1), lines: [])
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                sections.append(current)
                let column = line.count - trimmed.count + 1
                let isArray = trimmed.hasPrefix("[[")
                let inner = trimmed.drop { $0 == "[" }.prefix { $0 != "]" }
                let name = inner.filter { $0 != " " && $0 != "\t" && $0 != "\"" && $0 != "'" }
                current = Section(
                    name: isArray ? "[[\(name)]]" : String(name), header: Position(line: index + 1, column: column),
                    lines: []
                )
            } else {
                current.lines.append((index + 1, line))
            }
        }
        sections.append(current)
    }

    /// Where `keys` were written in `table` (`""` for the top level, `roles.failure`,
    /// or `[[rule]]` with `index`).
    func position(table: String, index: Int = 0, keys: [String]) -> Position {
        guard let section = sections.filter({ $0.name == table }).dropFirst(index).first else {
            return Position(line: 1, column: 1)
        }
        guard let first = keys.first else { return section.header }
        for (number, text) in section.lines {
            guard let column = Self.column(of: first, in: text, from: text.startIndex, atLineStart: true) else { continue }
            var found = Position(line: number, column: column)
            // Deeper keys on the same line: an inline table `match = { role = "x" }`.
            var from = text.index(text.startIndex, offsetBy: column - 1)
            for key in keys.dropFirst() {
                guard let deeper = Self.column(of: key, in: text, from: from, atLineStart: false) else { break }
                found = Position(line: number, column: deeper)
                from = text.index(text.startIndex, offsetBy: deeper - 1)
            }
            return found
        }
        return section.header
    }

    /// The 1-based column where `key =` (or `"key" =`) starts at or after
    /// `from`; at the line's start when `atLineStart` (leading blanks aside).
    private static func column(of key: String, in line: Substring, from: Substring.Index, atLineStart: Bool)
        -> Int?
    {
        var index = from
        while index < line.endIndex {
            let rest = line[index...]
            let candidates = [key, "\"\(key)\""]
            if let spelled = candidates.first(where: { rest.hasPrefix($0) }) {
                let before = index == line.startIndex ? " " : line[line.index(before: index)]
                let after = rest.dropFirst(spelled.count).drop { $0 == " " || $0 == "\t" }
                if (before == " " || before == "\t" || before == "{" || before == ",") && (after.first == "=" || after.first == ".") {
                    return line.distance(from: line.startIndex, to: index) + 1
                }
            }
            if atLineStart && line[index] != " " && line[index] != "\t" { return nil }
            index = line.index(after: index)
        }
        return nil
    }
}
