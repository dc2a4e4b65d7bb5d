// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastConfig

/// TOML read by toml++ and handed over as JSON values (`ConfigDocument`).
@Suite("TOML document")
struct ConfigDocumentTests {
    static func parsed(_ text: String) throws -> JSONValue {
        switch ConfigDocument.parse(text) {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    @Test func everyKindOfValueArrivesAsItsJSONValue() throws {
        let document = try Self.parsed(
            """
            title = "toastd ✓"
            literal = 'C:\\path'
            multi = \"\"\"
            two
            lines\"\"\"
            count = 0xff_ff
            negative = -9_223_372_036_854_775_808
            ratio = 6.5e-1
            off = false
            when = 1979-05-27T07:32:00Z
            day = 1979-05-27
            empty = []
            point = { x = 1, y = [2, "three", [true]] }
            dotted.key.here = 4

            [roles.failure]
            duration = "long"

            [[rule]]
            name = "first"
            [[rule]]
            name = "second"
            """
        )
        let expected: JSONValue = [
            "title": "toastd ✓", "literal": "C:\\path", "multi": "two\nlines", "count": 65_535,
            "negative": .int(Int64.min), "ratio": 0.65, "off": false,
            "when": "1979-05-27T07:32:00Z", "day": "1979-05-27", "empty": [],
            "point": ["x": 1, "y": [2, "three", [true]]],
            "dotted": ["key": ["here": 4]],
            "roles": ["failure": ["duration": "long"]],
            "rule": [["name": "first"], ["name": "second"]],
        ]
        #expect(document == expected)
    }

    /// Strings are handed over with their length: a NUL escape stays in
    /// them (ConfigPrescan refuses it in a file, before this).
    @Test func aStringKeepsWhatFollowsANul() throws {
        #expect(try Self.parsed(#"s = "a\u0000b""#) == ["s": "a\u{0}b"])
    }

    @Test(arguments: [
        ("a = 1\nb = \n", 2),
        ("[t]\nx = 1\n[t]\n", 3),
        ("a = \"open\n", 1),
        ("a = 1\na = 2\n", 2),
    ])
    func aSyntaxErrorSaysWhere(text: String, line: Int) {
        guard case .failure(let error) = ConfigDocument.parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.line == line, "\(error)")
        #expect(error.column >= 1 && !error.message.isEmpty)
    }
}
