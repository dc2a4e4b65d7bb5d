// SPDX-License-Identifier: Apache-2.0
/// A JSON document as a plain value.
///
/// toastd parses each wire line into a `JSONValue` (with `JSONParser`), then
/// maps it onto typed requests by hand, so that every
/// rejected field gets an error that names it. Encoding is done here, not by
/// `JSONEncoder`, because the output must be byte-for-byte deterministic
/// (keys sorted, one spelling per number) for the protocol transcripts and
/// because each event is encoded once and shared by every subscriber.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(literal: elements))
    }
}

// MARK: - Parsing

public enum JSONParseFailure: Error, Sendable, Equatable {
    case invalidUTF8
    case invalidJSON(String)
}

extension JSONValue {
    /// Parses one complete JSON text (see `JSONParser`). Invalid UTF-8 is
    /// reported apart from malformed JSON so that the wire error can say
    /// which it was.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONParseFailure) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable(Self.parseResult)
            ?? Array(bytes).withUnsafeBufferPointer(Self.parseResult)
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONParseFailure) -> JSONValue {
        var text = text
        return try text.withUTF8(Self.parseResult).get()
    }

    private static func parseResult(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseFailure> {
        Result { () throws(JSONParseFailure) in try JSONParser.parse(buffer) }
    }
}

// MARK: - Encoding

extension JSONValue {
    /// The compact, canonical serialization: object keys sorted by their
    /// UTF-8 bytes, no insignificant whitespace, integers without a fraction.
    public var serialized: String {
        String(decoding: LineWriter.line { write(into: &$0) }, as: UTF8.self)
    }

    /// Appends the canonical serialization to `out`.
    public func write(into out: inout [UInt8]) {
        out.append(contentsOf: LineWriter.line { write(into: &$0) })
    }

    func write(into out: inout LineWriter) {
        switch self {
        case .null:
            out.bytes("null")
        case .bool(let value):
            out.bytes(value ? "true" : "false")
        case .int(let value):
            out.integer(value)
        case .double(let value):
            out.number(value)
        case .string(let value):
            out.string(value)
        case .array(let elements):
            out.byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.byte(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.byte(UInt8(ascii: "]"))
        case .object(let object):
            // Members are kept in their keys' byte order: the canonical order.
            out.byte(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.byte(UInt8(ascii: ",")) }
                out.string(member.key)
                out.byte(UInt8(ascii: ":"))
                member.value.write(into: &out)
            }
            out.byte(UInt8(ascii: "}"))
        }
    }
}

// MARK: - Accessors

extension JSONValue {
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value == value.rounded() && abs(value) < 9.0e15: return Int64(value)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
