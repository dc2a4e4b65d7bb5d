// SPDX-License-Identifier: Apache-2.0
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
        guard line.isASCII || String(validating: line, as: UTF8.self) != nil else { return nil }
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

    /// The members of `decodeToast`, each set as `decodeToast` sets it
    /// (`Toast.decode`), absent ones left at `Toast.init`'s defaults.
    private mutating func toast() throws(NotFast) -> (toast: Toast, defaulted: ToastFieldSet) {
        var seen = Seen()
        var message: String?
        var toast = Toast(message: "")
        var first = true
        try beginObject()
        while let key = try nextKey(&first) {
            guard let member = Self.member(named: key), !seen.contains(member) else {
                // A member given twice is the general decoder's error to word.
                throw NotFast()
            }
            seen.insert(member)
            do {
                // Text and names are read straight from the bytes; the rest
                // as values, through the member's own decoding.
                switch member {
                case .message: message = try string()
                case .title: toast.title = try string()
                case .icon: toast.icon = try string()
                case .scene: toast.scene = try string()
                case .reuseID: toast.reuseID = try string()
                case .source: toast.source = try string()
                case .role: toast.role = try named(ToastRole.self)
                case .alignment: toast.alignment = try named(ToastAlignment.self)
                case .cancellation: toast.cancellation = try named(CancellationPolicy.self)
                default: try toast.decode(member, from: try value())
                }
            } catch {
                throw NotFast()
            }
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

    /// The members seen so far, as bits.
    private struct Seen {
        private var bits: UInt64 = 0

        func contains(_ member: ToastMember) -> Bool { bits & (1 << member.rawValue) != 0 }
        mutating func insert(_ member: ToastMember) { bits |= 1 << member.rawValue }
    }

    /// The member a key names, its bytes compared with each key of its
    /// length: a key was a `String`, then up to eighteen string comparisons
    /// in a `switch`, a fifth of decoding an add.
    private static func member(named key: UnsafeBufferPointer<UInt8>) -> ToastMember? {
        for member in ToastMember.allCases where JSONParser.equal(key, member.key) { return member }
        return nil
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
