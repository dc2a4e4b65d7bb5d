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
    case object([String: JSONValue])
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
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public func write(into out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value):
            WireEncoder.writeInteger(value, into: &out)
        case .double(let value):
            Self.writeNumber(value, into: &out)
        case .string(let value):
            Self.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted(by: Self.precedesInUTF8)
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Byte order of the UTF-8 forms: the canonical order of object keys.
    static func precedesInUTF8(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }

    static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        guard value.isFinite else {
            // JSON has no spelling for these; validation keeps them out of
            // every toast, so this is only a last line of defence.
            out.append(contentsOf: "null".utf8)
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            WireEncoder.writeInteger(Int64(value), into: &out)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Most strings need no escape: copy them whole.
            var needsEscape = false
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F {
                needsEscape = true
                break
            }
            if !needsEscape {
                out.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x00..<0x20, 0x7F:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0x0F)])
                default:
                    out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
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
