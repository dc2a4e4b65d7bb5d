/// The common request, `{"op":"add","toast":{...}}`, read straight from its
/// bytes into a `Toast`.
///
/// The general decoder parses a line into a `JSONValue` (a dictionary for
/// the request and one for the toast, every key hashed on the way in) and
/// then looks each of eighteen fields up by name, hashing again; in the
/// ingest profile the two were a fifth of the event loop. This path walks
/// the members once and sets each field as it meets it, with the parser's
/// own string and number reading and the general decoder's own checks for
/// every value, so what it accepts decodes to exactly the same request.
///
/// It is only a fast path: anything it does not handle (another op, a
/// `ref`, an unknown or repeated member, invalid UTF-8, any value the
/// checks refuse) gives nil, and the general decoder reads the line, with
/// its errors. A test and the fuzzer compare both on every line they see.
extension WireDecoder {
    /// The toast of an add line, and the fields it left to defaults; nil
    /// when the general decoder must read the line.
    static func fastAdd(_ line: UnsafeBufferPointer<UInt8>) -> (toast: Toast, defaulted: ToastFieldSet)? {
        guard JSONParser.isASCII(line) || String(validating: line, as: UTF8.self) != nil else { return nil }
        var parser = JSONParser(bytes: line)
        return try? parser.addRequest()
    }

    /// The general decoder's reading of `line`, and whether the fast path,
    /// where it takes the line, decodes it to the same. The fuzzer asks
    /// this of every line, then answers the reading (one general decode
    /// serves both).
    public static func decodeBothWays(_ line: UnsafeBufferPointer<UInt8>) -> (Result<RequestEnvelope, Failure>, fastPathAgrees: Bool) {
        let general = decodeGenerally(line: line)
        guard let (toast, defaulted) = fastAdd(line) else { return (general, true) }
        return (general, general == .success(RequestEnvelope(ref: nil, request: .command(.add(toast)), defaulted: defaulted)))
    }
}

extension JSONParser {
    /// Why the fast path gave up; never seen outside it.
    struct NotFast: Error {}

    /// `{"op":"add","toast":{...}}` in either order, and nothing else.
    mutating func addRequest() throws(NotFast) -> (toast: Toast, defaulted: ToastFieldSet) {
        var sawOp = false
        var found: (toast: Toast, defaulted: ToastFieldSet)?
        var first = true
        try beginObject()
        while let key = try nextKey(&first) {
            switch key {
            case "op" where !sawOp:
                guard case .string("add") = try value() else { throw NotFast() }
                sawOp = true
            case "toast" where found == nil:
                found = try toast()
            default:
                throw NotFast()
            }
        }
        skipWhitespace()
        guard sawOp, let found, index == bytes.count else { throw NotFast() }
        return found
    }

    /// The members of `decodeToast`, each set as `decodeToast` sets it.
    private mutating func toast() throws(NotFast) -> (toast: Toast, defaulted: ToastFieldSet) {
        var seen: Member = []
        var message: String?
        var toast = Toast(message: "")
        // What decodeToast gives the fields that are absent.
        toast.role = .plain
        toast.alignment = .top
        toast.scene = Toast.defaultScene
        toast.progress = .none
        toast.dismissible = true
        toast.closeButton = false
        toast.actions = []
        toast.cancellation = .presentation
        toast.invalidation = []
        toast.resident = false
        toast.transient = false
        toast.level = nil
        var first = true
        try beginObject()
        while let key = try nextKey(&first) {
            let value = try value()
            let bit: Member
            do {
                switch key {
                case "message": bit = .message; message = try Self.string(value)
                case "title": bit = .title; toast.title = try Self.string(value)
                case "icon": bit = .icon; toast.icon = try Self.string(value)
                case "role": bit = .role; toast.role = try Self.named(value, ToastRole.self)
                case "duration": bit = .duration; toast.duration = try WireDecoder.decodeDuration(value, field: "toast.duration")
                case "alignment": bit = .alignment; toast.alignment = try Self.named(value, ToastAlignment.self)
                case "scene": bit = .scene; toast.scene = try Self.string(value)
                case "reuseId": bit = .reuseID; toast.reuseID = try Self.string(value)
                case "progress":
                    bit = .progress
                    toast.progress = try WireDecoder.decodeProgress(value, field: "toast.progress") ?? .none
                case "dismissible": bit = .dismissible; toast.dismissible = try Self.bool(value)
                case "closeButton": bit = .closeButton; toast.closeButton = try Self.bool(value)
                case "actions":
                    bit = .actions
                    guard case .array(let elements) = value else { throw NotFast() }
                    toast.actions = try WireDecoder.decodeActions(elements, field: "toast.actions") ?? []
                case "source": bit = .source; toast.source = try Self.string(value)
                case "cancellation": bit = .cancellation; toast.cancellation = try Self.named(value, CancellationPolicy.self)
                case "invalidation":
                    bit = .invalidation
                    guard case .array(let elements) = value else { throw NotFast() }
                    toast.invalidation = try WireDecoder.decodeInvalidation(elements, field: "toast.invalidation")
                case "resident": bit = .resident; toast.resident = try Self.bool(value)
                case "transient": bit = .transient; toast.transient = try Self.bool(value)
                case "level":
                    bit = .level
                    guard let level = value.intValue, PauseLevels.range.contains(Int(clamping: level)) else { throw NotFast() }
                    toast.level = Int(level)
                default:
                    throw NotFast()
                }
            } catch {
                throw NotFast()
            }
            // A member given twice is the general decoder's error to word.
            guard seen.isDisjoint(with: bit) else { throw NotFast() }
            seen.formUnion(bit)
        }
        guard let message else { throw NotFast() }
        toast.message = message
        do throws(ToastError) {
            try toast.validate()
        } catch {
            throw NotFast()
        }
        var defaulted: ToastFieldSet = []
        if !seen.contains(.duration) { defaulted.insert(.duration) }
        if !seen.contains(.alignment) { defaulted.insert(.alignment) }
        if !seen.contains(.dismissible) { defaulted.insert(.dismissible) }
        return (toast, defaulted)
    }

    /// The members a toast may have (`WireDecoder.toastFields`), as bits.
    private struct Member: OptionSet {
        let rawValue: UInt32
        static let message = Self(rawValue: 1 << 0), title = Self(rawValue: 1 << 1), icon = Self(rawValue: 1 << 2)
        static let role = Self(rawValue: 1 << 3), duration = Self(rawValue: 1 << 4), alignment = Self(rawValue: 1 << 5)
        static let scene = Self(rawValue: 1 << 6), reuseID = Self(rawValue: 1 << 7), progress = Self(rawValue: 1 << 8)
        static let dismissible = Self(rawValue: 1 << 9), closeButton = Self(rawValue: 1 << 10), actions = Self(rawValue: 1 << 11)
        static let source = Self(rawValue: 1 << 12), cancellation = Self(rawValue: 1 << 13)
        static let invalidation = Self(rawValue: 1 << 14), resident = Self(rawValue: 1 << 15)
        static let transient = Self(rawValue: 1 << 16), level = Self(rawValue: 1 << 17)
    }

    private static func string(_ value: JSONValue) throws(NotFast) -> String {
        guard let string = value.stringValue else { throw NotFast() }
        return string
    }

    private static func bool(_ value: JSONValue) throws(NotFast) -> Bool {
        guard let bool = value.boolValue else { throw NotFast() }
        return bool
    }

    private static func named<T: RawRepresentable & CaseIterable>(_ value: JSONValue, _: T.Type) throws(NotFast) -> T
    where T.RawValue == String {
        guard let named = T(rawValue: try string(value)) else { throw NotFast() }
        return named
    }

    private mutating func beginObject() throws(NotFast) {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { throw NotFast() }
    }

    /// The next member's key, with the parser at its value; nil at the
    /// object's closing brace. `first` is the object's own state.
    private mutating func nextKey(_ first: inout Bool) throws(NotFast) -> String? {
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            // `{}` or after a value; `{"a":1,}` fails below instead.
            return nil
        }
        if !first {
            guard consume(UInt8(ascii: ",")) else { throw NotFast() }
            skipWhitespace()
        }
        first = false
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw NotFast() }
        let key: String
        do throws(JSONParseFailure) { key = try parseString() } catch { throw NotFast() }
        skipWhitespace()
        guard consume(UInt8(ascii: ":")) else { throw NotFast() }
        skipWhitespace()
        return key
    }

    /// One member's value, read by the general parser.
    private mutating func value() throws(NotFast) -> JSONValue {
        do throws(JSONParseFailure) { return try parseValue() } catch { throw NotFast() }
    }
}
