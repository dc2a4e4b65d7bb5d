// SPDX-License-Identifier: Apache-2.0
/// What a configuration file is checked for before toml++ sees it
/// (`ConfigDocument`): two things a TOML reader does not bound, or that
/// toastd cannot carry.
///
/// - **Dotted keys and table headers nest at most `maxKeyParts` deep.**
///   toml++ bounds nested arrays and inline tables (256),
///   but not `a.a.a...` keys: a 120 KB file of them overflowed the stack
///   and crashed toastd (issue #38). toastd's own keys are at most four
///   parts deep (`roles.failure.duration`).
/// - **No NUL in a string.** A command's arguments end up C strings, and
///   TOMLKit (which toastd read TOML with before) handed every string over
///   as one: `"/usr/bin/touch\u0000 --help"` arrived as `/usr/bin/touch`, a
///   command that ran something else than it said. An escape of NUL is an
///   error wherever it is (a raw NUL byte is one for TOML itself).
///
/// A small lexer over the bytes: it knows TOML's four kinds of string and
/// its comments, so that a dot or an escape inside them is read as text.
/// Linear in the file, which `ToastdConfig.maxFileBytes` bounds.
struct ConfigPrescan {
    static let maxKeyParts = 16

    private(set) var problems: [ToastdConfig.Problem] = []

    init(_ text: String) {
        var lexer = Lexer(Array(text.utf8))
        lexer.run()
        problems = lexer.problems
    }

    private struct Lexer {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        /// Where the current line starts, for columns.
        var lineStart = 0
        /// Key separators on this line so far, and whether it was reported.
        var dots = 0
        var reportedDepth = false
        var problems: [ToastdConfig.Problem] = []

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var column: Int { bytes[lineStart..<min(index, bytes.count)].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }

        func byte(_ offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

        func starts(with text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return text.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
        }

        mutating func newline() {
            index += 1
            line += 1
            lineStart = index
            dots = 0
            reportedDepth = false
        }

        mutating func problem(_ message: String) {
            problems.append(ToastdConfig.Problem(line: line, column: column, message: message))
        }

        mutating func run() {
            while let byte = byte() {
                switch byte {
                case UInt8(ascii: "\n"): newline()
                case UInt8(ascii: "#"): while let next = self.byte(), next != UInt8(ascii: "\n") { index += 1 }
                case UInt8(ascii: "\""), UInt8(ascii: "'"): string(byte)
                case UInt8(ascii: "."):
                    // A dot between digits is a number's (1.5, a time's .999), not a key's.
                    let inNumber = index > 0 && isDigit(bytes[index - 1]) && self.byte(1).map(isDigit) == true
                    if !inNumber {
                        dots += 1
                        if dots >= ConfigPrescan.maxKeyParts && !reportedDepth {
                            reportedDepth = true
                            problem("a dotted key or table header has more than \(ConfigPrescan.maxKeyParts) parts")
                        }
                    }
                    index += 1
                default: index += 1
                }
            }
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// A string from its opening quote: `'` or `'''` (no escapes), or
        /// `"` or `"""` (escapes). A single-line one ends at the line's end.
        mutating func string(_ quote: UInt8) {
            let isLiteral = quote == UInt8(ascii: "'")
            let multiline = isLiteral ? starts(with: "'''") : starts(with: "\"\"\"")
            let closes = { (lexer: Lexer) in isLiteral ? lexer.starts(with: "'''") : lexer.starts(with: "\"\"\"") }
            index += multiline ? 3 : 1
            while let byte = byte() {
                if multiline ? closes(self) : byte == quote {
                    index += multiline ? 3 : 1
                    return
                }
                if byte == UInt8(ascii: "\n") {
                    if !multiline { return }
                    newline()
                } else if byte == UInt8(ascii: "\\") && !isLiteral {
                    escape()
                } else {
                    index += 1
                }
            }
        }

        /// At a backslash in a basic string: `\u0000` or `\U00000000` is NUL.
        mutating func escape() {
            let digits: Int
            switch byte(1) {
            case UInt8(ascii: "u"): digits = 4
            case UInt8(ascii: "U"): digits = 8
            default:
                // `\\` and `\"` must not end the string or start another escape.
                index += byte(1) == UInt8(ascii: "\n") ? 1 : 2
                return
            }
            let hex = bytes[min(index + 2, bytes.count)..<min(index + 2 + digits, bytes.count)]
            if hex.count == digits, hex.allSatisfy({ $0 == UInt8(ascii: "0") }) {
                problem("a string may not hold NUL (\\u0000): a command or a name would be cut there")
            }
            index += 2
        }
    }
}
