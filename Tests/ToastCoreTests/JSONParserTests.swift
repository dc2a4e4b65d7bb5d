// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("JSON parser")
struct JSONParserTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        (" true ", .bool(true)),
        ("false", .bool(false)),
        ("0", .int(0)),
        ("-0", .int(0)),
        ("-12", .int(-12)),
        ("9223372036854775807", .int(.max)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("1.5", .double(1.5)),
        ("1e2", .double(100)),
        ("-2.5E-1", .double(-0.25)),
        ("\"\"", .string("")),
        ("\"a\\\"b\\\\c\\/d\"", .string("a\"b\\c/d")),
        ("\"\\b\\f\\n\\r\\t\"", .string("\u{08}\u{0C}\n\r\t")),
        ("\"\\u00e9\\u4E2D\"", .string("é中")),
        ("\"\\ud83c\\udf5e\"", .string("🍞")),
        ("\"raw 🍞 中\"", .string("raw 🍞 中")),
        ("[]", .array([])),
        ("[1, [2, {}], \"x\"]", .array([1, .array([2, .object([:])]), "x"])),
        ("{ \"a\" : 1 , \"b\" : [ true , null ] }", .object(["a": 1, "b": .array([true, nil])])),
    ] as [(String, JSONValue)])
    func parsesValid(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test(arguments: [
        ("", "unexpected end of line, expected a value at byte 0"),
        ("{\"op\":", "unexpected end of line, expected a value at byte 6"),
        ("{\"a\":1,}", "unexpected '}', expected a member name in quotes at byte 7"),
        ("[1,]", "unexpected ']', expected a value at byte 3"),
        ("[1 2]", "unexpected '2', expected ',' or ']' at byte 3"),
        ("{\"a\" 1}", "unexpected '1', expected ':' at byte 5"),
        ("{a:1}", "unexpected 'a', expected a member name in quotes at byte 1"),
        ("{\"a\":1,\"a\":2}", "duplicate member \"a\" at byte 7"),
        ("01", "a number may not have a leading zero at byte 1"),
        ("-", "a number needs a digit after '-' at byte 1"),
        ("1.", "a number needs a digit after '.' at byte 2"),
        ("1e", "a number needs a digit in its exponent at byte 2"),
        ("1e400", "number 1e400 at byte 0 is out of range"),
        ("+1", "unexpected '+', expected a value at byte 0"),
        ("NaN", "unexpected 'N', expected a value at byte 0"),
        ("tru", "unexpected 't', expected a value at byte 0"),
        ("\"abc", "unterminated string starting at byte 0"),
        ("\"a\\", "unterminated escape at byte 3"),
        ("\"\\x\"", "unknown escape \\'x' at byte 2"),
        ("\"\\u12\"", "a \\u escape needs four hex digits at byte 3"),
        ("\"\\ud83c\"", "a high surrogate escape without its low surrogate at byte 7"),
        ("\"\\udf5e\"", "a low surrogate escape without its high surrogate at byte 7"),
        ("\"tab\there\"", "unescaped control character 0x09 in a string at byte 4"),
        ("{} {}", "unexpected '{' after the JSON value at byte 3"),
        ("[1]\u{0}", "unexpected byte 0x00 after the JSON value at byte 3"),
    ])
    func rejectsInvalidWithAPlace(text: String, message: String) {
        #expect(throws: JSONParseFailure.invalidJSON(message)) { try JSONValue.parse(text) }
    }

    @Test func invalidUTF8IsItsOwnFailure() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0xFE]] {
            #expect(throws: JSONParseFailure.invalidUTF8) { try JSONValue.parse(bytes) }
        }
    }

    /// Short decimals are computed from their digits (`shortDecimal`), not
    /// by `Double(String)`: over random numbers of up to 17 digits (the
    /// longer ones take the general path), with the point anywhere and
    /// either sign, the value is the same, to the bit (negative zero
    /// included), and integers stay integers.
    @Test func shortDecimalsReadAsTheGeneralConversionReadsThem() throws {
        var generator = IDTableTests.Generator(state: 15)
        var texts = ["0.1", "-0.0", "0.25", "999999999999999", "-999999999999999", "0.000000000000001", "1234567890.12345", "9007199254740993"]
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...17, using: &generator)
            let integralCount = Int.random(in: 1...count, using: &generator)
            func digits(_ count: Int) -> String {
                (0..<count).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            }
            // No leading zero, as JSON wants.
            let integral = integralCount == 1 ? digits(1) : String(Int.random(in: 1...9, using: &generator)) + digits(integralCount - 1)
            let fraction = count == integralCount ? "" : "." + digits(count - integralCount)
            texts.append((Bool.random(using: &generator) ? "-" : "") + integral + fraction)
        }
        for text in texts {
            let parsed = try JSONValue.parse(text)
            if !text.contains("."), let integer = Int64(text) {
                #expect(parsed == .int(integer), "\(text)")
            } else if case .double(let value) = parsed {
                #expect(value.bitPattern == Double(text)!.bitPattern, "\(text)")
            } else {
                Issue.record("\(text) read as \(parsed)")
            }
        }
    }

    @Test func nestingIsBounded() throws {
        let depth = JSONParser.maximumDepth
        let deepest = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try JSONValue.parse(deepest) }
        let tooDeep = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        #expect(throws: JSONParseFailure.invalidJSON("nested deeper than \(depth) levels at byte \(depth)")) {
            try JSONValue.parse(tooDeep)
        }
        // A hostile line of 64 KiB of brackets fails fast instead of
        // exhausting the stack.
        #expect(throws: JSONParseFailure.self) { try JSONValue.parse(String(repeating: "{\"a\":[", count: 10_000)) }
    }

    @Test func parsesNonContiguousCollections() throws {
        let bytes = Array("{\"k\":[1,\"v\"]}".utf8)
        #expect(try JSONValue.parse(bytes.lazy.map { $0 }) == .object(["k": .array([1, "v"])]))
    }

    /// The scan for a string's end, eight bytes at a time, stops where a
    /// scan byte by byte stops, from every start, whatever sits around it
    /// (non-ASCII bytes, DEL and 0x1F next to the specials included).
    @Test func aPlainRunEndsWhereAByteScanEnds() async {
        let palette: [UInt8] = [0x61, 0x20, 0x22, 0x5C, 0x00, 0x1F, 0x7F, 0x80, 0xE4, 0xFF, 0x21, 0x5B, 0x5D]
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...40)) { seeds in
            // Mostly plain bytes, so that runs cross whole words.
            let bytes = seeds.map { $0 % 4 == 0 ? palette[($0 / 4) % palette.count] : UInt8(0x30 + $0 % 40) }
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...buffer.count {
                    let expected = buffer[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? buffer.count
                    #expect(JSONParser.plainRunEnd(buffer, from: start) == expected)
                }
                #expect(buffer.isASCII == bytes.allSatisfy { $0 < 0x80 })
            }
        }
    }

    /// What the encoder writes, the parser reads back as the same value.
    @Test func parsesWhatTheEncoderWrites() async {
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)).array(of: 1...60)) { seeds in
            var source = seeds.makeIterator()
            let value = Self.value(from: &source, depth: 0)
            #expect((try? JSONValue.parse(value.serialized)) == value)
        }
    }

    /// Builds a value from a stream of numbers, so that a failure shrinks.
    static func value(from source: inout IndexingIterator<[Int]>, depth: Int) -> JSONValue {
        guard let seed = source.next() else { return .null }
        switch seed % (depth < 4 ? 8 : 6) {
        case 0: return .null
        case 1: return .bool(seed % 3 == 0)
        case 2: return .int(Int64(seed) * (seed % 5 == 0 ? -1 : 1) * Int64(1 << (seed % 32)))
        case 3: return .double(Double(seed) / 1024 + 0.5)
        case 4, 5: return .string(string(seed))
        case 6: return .array((0..<seed % 4).map { _ in value(from: &source, depth: depth + 1) })
        default:
            var members: JSONObject = [:]
            for key in 0..<seed % 4 { members[string(seed >> key)] = value(from: &source, depth: depth + 1) }
            return .object(members)
        }
    }

    static let palette: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1B}", "\u{7F}", "é", "中", "🍞", "\u{202E}"]

    static func string(_ seed: Int) -> String {
        String((0..<seed % 7).map { palette[(seed >> ($0 * 4)) % palette.count] })
    }
}
