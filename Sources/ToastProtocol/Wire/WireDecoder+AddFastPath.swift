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
            if Self.equal(key, "op"), !sawOp {
                guard let op = parsePlainString(), Self.equal(op, "add") else { throw NotFast() }
                sawOp = true
            } else if Self.equal(key, "toast"), found == nil {
                found = try toast()
            } else {
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
            guard let bit = Member(named: key) else { throw NotFast() }
            do {
                // Text members are read straight to their strings; the rest
                // as values, checked by the general decoder's own code.
                switch bit {
                case .message: message = try string()
                case .title: toast.title = try string()
                case .icon: toast.icon = try string()
                case .role: toast.role = try named(ToastRole.self)
                case .duration: toast.duration = try WireDecoder.decodeDuration(try value(), field: "toast.duration")
                case .alignment: toast.alignment = try named(ToastAlignment.self)
                case .scene: toast.scene = try string()
                case .reuseID: toast.reuseID = try string()
                case .progress: toast.progress = try WireDecoder.decodeProgress(try value(), field: "toast.progress") ?? .none
                case .dismissible: toast.dismissible = try Self.bool(try value())
                case .closeButton: toast.closeButton = try Self.bool(try value())
                case .actions:
                    guard case .array(let elements) = try value() else { throw NotFast() }
                    toast.actions = try WireDecoder.decodeActions(elements, field: "toast.actions") ?? []
                case .source: toast.source = try string()
                case .cancellation: toast.cancellation = try named(CancellationPolicy.self)
                case .invalidation:
                    guard case .array(let elements) = try value() else { throw NotFast() }
                    toast.invalidation = try WireDecoder.decodeInvalidation(elements, field: "toast.invalidation")
                case .resident: toast.resident = try Self.bool(try value())
                case .transient: toast.transient = try Self.bool(try value())
                default:  // .level
                    guard let level = try value().intValue, PauseLevels.range.contains(Int(clamping: level)) else {
                        throw NotFast()
                    }
                    toast.level = Int(level)
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
        init(rawValue: UInt32) { self.rawValue = rawValue }

        private static let names: [(name: StaticString, member: Member)] = [
            ("message", .message), ("title", .title), ("icon", .icon), ("role", .role), ("duration", .duration),
            ("alignment", .alignment), ("scene", .scene), ("reuseId", .reuseID), ("progress", .progress),
            ("dismissible", .dismissible), ("closeButton", .closeButton), ("actions", .actions), ("source", .source),
            ("cancellation", .cancellation), ("invalidation", .invalidation), ("resident", .resident),
            ("transient", .transient), ("level", .level),
        ]

        /// The member a key names, its bytes compared with each name of its
        /// length: a key was a `String`, then up to eighteen string
        /// comparisons in a `switch`, a fifth of decoding an add.
        init?(named key: UnsafeBufferPointer<UInt8>) {
            for (name, member) in Self.names where JSONParser.equal(key, name) {
                self = member
                return
            }
            return nil
        }
    }

    /// Whether `bytes` are exactly `text`'s.
    @inline(__always)
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        let start = text.utf8Start
        for offset in 0..<bytes.count where bytes[offset] != start[offset] { return false }
        return true
    }

    /// A string value, read as the general parser reads one.
    private mutating func string() throws(NotFast) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw NotFast() }
        do throws(JSONParseFailure) { return try parseString() } catch { throw NotFast() }
    }

    private static func bool(_ value: JSONValue) throws(NotFast) -> Bool {
        guard let bool = value.boolValue else { throw NotFast() }
        return bool
    }

    /// An enumeration's value, read from its name's bytes: making a
    /// `String` of it and switching over the names was about 300
    /// instructions a field. A name with an escape, or none of the names,
    /// is the general decoder's to read (and to refuse precisely).
    private mutating func named<T: WireNamed>(_: T.Type) throws(NotFast) -> T {
        guard let text = parsePlainString() else { throw NotFast() }
        for (name, value) in T.wireNames where name.elementsEqual(text) { return value }
        throw NotFast()
    }

    private mutating func beginObject() throws(NotFast) {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { throw NotFast() }
    }

    /// The next member's key, with the parser at its value; nil at the
    /// object's closing brace. `first` is the object's own state.
    private mutating func nextKey(_ first: inout Bool) throws(NotFast) -> UnsafeBufferPointer<UInt8>? {
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
        // A key with an escape in it is the general decoder's to read.
        guard let key = parsePlainString() else { throw NotFast() }
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

/// An enumeration the add fast path reads from its wire name's bytes.
protocol WireNamed: RawRepresentable, CaseIterable where RawValue == String {
    /// Each case's name, as `rawValue` spells it, and the case.
    static var wireNames: [([UInt8], Self)] { get }
}

extension WireNamed {
    static func makeWireNames() -> [([UInt8], Self)] { allCases.map { (Array($0.rawValue.utf8), $0) } }
}

extension ToastRole: WireNamed {
    static let wireNames = makeWireNames()
}

extension ToastAlignment: WireNamed {
    static let wireNames = makeWireNames()
}

extension CancellationPolicy: WireNamed {
    static let wireNames = makeWireNames()
}
