// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif
/// A waiting toast's record, packed into one small byte buffer.
///
/// Nobody reads a queued toast until it is shown, updated, listed or
/// removed, yet it is most of what a busy toastd holds: 100,000 waiting
/// toasts took a 232-byte `ToastRecord` each, plus a heap buffer for every
/// string longer than 15 bytes. Packed, a record is its id beside one
/// buffer of about its text's size (docs/BENCHMARKS.md, section 4).
/// `RecordTable` packs every queued record and unpacks it on each read.
///
/// The format: `expiresAt` first, so that the table can read it without
/// the rest; then the record's numbers; then each member of the toast in
/// `ToastMember`'s order (one arm each in `pack` and `unpack`): strings as
/// length and UTF-8 bytes, an absent one as a 0 byte. Numbers are LEB128
/// varints (zigzag for the signed ones), doubles their 8 bits. `unpacked`
/// gives back an equal record.
///
/// The store keeps live toasts in this form too (`StoredToast`), so the
/// order of `ToastMember` and of every enumeration's cases is part of a
/// file format: a change to either needs a new `StoredToast.format`
/// (`StoredToastTests` pins the bytes).
package struct PackedRecord: Sendable, Equatable {
    package let id: ToastID
    let bytes: [UInt8]

    package init(_ record: ToastRecord) {
        id = record.id
        bytes = Self.withPacked(record, after: 0) { Array($0) }
    }

    /// A record whose bytes were packed elsewhere: a store's row, read
    /// through `StoredToast` (`checkedHeader`, then `skim` or `checkedRecord`) before
    /// anything reads it unchecked.
    init(id: ToastID, bytes: [UInt8]) {
        self.id = id
        self.bytes = bytes
    }

    /// `record` packed into scratch memory through a pointer, after
    /// `prefix` bytes that `body` fills in: appending to an array checked
    /// its uniqueness and capacity on every byte. The scratch is bounded by
    /// the most the record can take.
    static func withPacked<Result>(
        _ record: ToastRecord, after prefix: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try record.toast.readFields { toast in
            var bound = prefix + Writer.headerBound
            for member in members { bound += Self.bound(of: member, in: toast) }
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
                var writer = Writer(UnsafeMutableBufferPointer(rebasing: scratch[prefix...]))
                Self.write(record, toast, into: &writer)
                return try body(UnsafeMutableBufferPointer(rebasing: scratch[..<(prefix + writer.count)]))
            }
        }
    }

    private static func write(_ record: ToastRecord, _ toast: Toast.Fields, into writer: inout Writer) {
        writer.optional(record.expiresAt)
        writer.unsigned(UInt64(bitPattern: Int64(record.repeatCount)))
        writer.signed(record.createdAt)
        writer.optional(record.presentedAt)
        writer.unsigned(record.placement)
        writer.byte(record.state == .queued ? 0 : 1)
        for member in members { pack(member, of: toast, into: &writer) }
    }

    // MARK: - The members (one arm each, in `ToastMember`'s order)

    /// `ToastMember.allCases`, made once: that property is another module's,
    /// and builds its array on every call.
    static let members = ToastMember.allCases

    /// The most bytes `member` packs into: a varint is 10 at most, a double 8,
    /// a string its bytes and a 10-byte length (11 with the byte that says
    /// whether an optional one is there).
    private static func bound(of member: ToastMember, in toast: Toast.Fields) -> Int {
        func text(_ value: String?) -> Int { 11 + (value?.utf8.count ?? 0) }
        switch member {
        case .message: return text(toast.message)
        case .title: return text(toast.title)
        case .icon: return text(toast.icon)
        case .scene: return text(toast.scene)
        case .reuseID: return text(toast.reuseID)
        case .source: return text(toast.source)
        case .role, .alignment, .cancellation, .invalidation, .dismissible, .closeButton, .resident, .transient: return 1
        case .duration, .progress: return 9
        case .level: return 11
        case .actions: return toast.actions.reduce(10) { $0 + 20 + $1.id.utf8.count + $1.label.utf8.count }
        case .markup: return text(toast.markup)
        case .category: return text(toast.category)
        case .desktopEntry: return text(toast.desktopEntry)
        case .soundName: return text(toast.soundName)
        case .urgency, .dedupe: return 1
        case .image:
            switch toast.image {
            case nil: return 1
            case .path(let path)?: return 12 + path.utf8.count
            case .pixels(_, _, let rgba)?: return 1 + 2 * 10 + 10 + rgba.count
            }
        }
    }

    private static func pack(_ member: ToastMember, of toast: Toast.Fields, into writer: inout Writer) {
        switch member {
        case .message: writer.string(toast.message)
        case .title: writer.optional(toast.title)
        case .icon: writer.optional(toast.icon)
        case .role: writer.byte(Self.index(of: toast.role, in: Self.roles))
        case .duration:
            switch toast.duration {
            case nil: writer.byte(0)
            case .short?: writer.byte(1)
            case .long?: writer.byte(2)
            case .longer?: writer.byte(3)
            case .indefinite?: writer.byte(4)
            case .seconds(let seconds)?:
                writer.byte(5)
                writer.double(seconds)
            }
        case .alignment: writer.byte(Self.index(of: toast.alignment, in: Self.alignments))
        case .scene: writer.string(toast.scene)
        case .reuseID: writer.optional(toast.reuseID)
        case .progress:
            switch toast.progress {
            case .none: writer.byte(0)
            case .indeterminate: writer.byte(1)
            case .fraction(let fraction):
                writer.byte(2)
                writer.double(fraction)
            }
        case .dismissible: writer.byte(toast.dismissible ? 1 : 0)
        case .closeButton: writer.byte(toast.closeButton ? 1 : 0)
        case .actions:
            writer.unsigned(UInt64(toast.actions.count))
            for action in toast.actions {
                writer.string(action.id)
                writer.string(action.label)
            }
        case .source: writer.optional(toast.source)
        case .cancellation: writer.byte(Self.index(of: toast.cancellation, in: Self.cancellations))
        case .invalidation: writer.byte(toast.invalidation.rawValue)
        case .resident: writer.byte(toast.resident ? 1 : 0)
        case .transient: writer.byte(toast.transient ? 1 : 0)
        case .level: writer.optional(toast.level.map(Int64.init))
        case .markup: writer.optional(toast.markup)
        case .category: writer.optional(toast.category)
        case .desktopEntry: writer.optional(toast.desktopEntry)
        case .soundName: writer.optional(toast.soundName)
        case .urgency: writer.byte(toast.urgency.map { $0.level + 1 } ?? 0)
        case .dedupe: writer.byte(toast.dedupe ? 1 : 0)
        case .image:
            switch toast.image {
            case nil: writer.byte(0)
            case .path(let path)?:
                writer.byte(1)
                writer.string(path)
            case .pixels(let width, let height, let rgba)?:
                writer.byte(2)
                writer.unsigned(UInt64(width))
                writer.unsigned(UInt64(height))
                writer.bytes(rgba)
            }
        }
    }

    private static func unpack(_ member: ToastMember, into toast: inout Toast.Fields, from reader: inout Reader) throws(Damage) {
        switch member {
        case .message: toast.message = try reader.string()
        case .title: toast.title = try reader.optionalString()
        case .icon: toast.icon = try reader.optionalString()
        case .role: toast.role = Self.roles[try reader.choice(of: Self.roles.count, "toast.role")]
        case .duration:
            toast.duration =
                switch try reader.byte() {
                case 0: nil
                case 1: .short
                case 2: .long
                case 3: .longer
                case 4: .indefinite
                case 5: .seconds(try reader.double())
                default: throw Damage("toast.duration has no case of that number")
                }
        case .alignment: toast.alignment = Self.alignments[try reader.choice(of: Self.alignments.count, "toast.alignment")]
        case .scene: toast.scene = try reader.string()
        case .reuseID: toast.reuseID = try reader.optionalString()
        case .progress:
            toast.progress =
                switch try reader.byte() {
                case 0: .none
                case 1: .indeterminate
                case 2: .fraction(try reader.double())
                default: throw Damage("toast.progress has no case of that number")
                }
        case .dismissible: toast.dismissible = try reader.bool()
        case .closeButton: toast.closeButton = try reader.bool()
        case .actions:
            let count = try reader.unsigned()
            guard count > 0 else { return }
            // Each action takes two bytes at least.
            guard count <= UInt64(reader.remaining / 2) else { throw Damage("toast.actions counts more than the record holds") }
            var actions: [ToastAction] = []
            actions.reserveCapacity(Int(count))
            for _ in 0..<count {
                let id = try reader.string()
                actions.append(ToastAction(id: id, label: try reader.string()))
            }
            toast.actions = actions
        case .source: toast.source = try reader.optionalString()
        case .cancellation: toast.cancellation = Self.cancellations[try reader.choice(of: Self.cancellations.count, "toast.cancellation")]
        case .invalidation:
            let raw = try reader.byte()
            guard raw & ~Self.invalidationBits == 0 else { throw Damage("toast.invalidation has a flag no version defines") }
            toast.invalidation = InvalidationOptions(rawValue: raw)
        case .resident: toast.resident = try reader.bool()
        case .transient: toast.transient = try reader.bool()
        case .level: toast.level = try reader.optional().map { Int($0) }
        case .markup: toast.markup = try reader.optionalString()
        case .category: toast.category = try reader.optionalString()
        case .desktopEntry: toast.desktopEntry = try reader.optionalString()
        case .soundName: toast.soundName = try reader.optionalString()
        case .urgency:
            let level = try reader.byte()
            guard level <= 3 else { throw Damage("toast.urgency has no case of that number") }
            toast.urgency = level == 0 ? nil : ToastUrgency(level: level - 1)
        case .dedupe: toast.dedupe = try reader.bool()
        case .image:
            switch try reader.byte() {
            case 0: toast.image = nil
            case 1: toast.image = .path(try reader.string())
            case 2:
                let width = try reader.unsigned()
                let height = try reader.unsigned()
                // Checked sizes come from `ToastImage.problem`; these only keep `Int` whole.
                guard width <= UInt64(Int32.max), height <= UInt64(Int32.max) else { throw Damage("toast.image is larger than any image") }
                toast.image = .pixels(width: Int(width), height: Int(height), rgba: try reader.byteArray())
            default: throw Damage("toast.image has no case of that number")
            }
        }
    }

    /// Every flag of `InvalidationOptions`.
    static let invalidationBits = InvalidationOptions.named.reduce(0) { $0 | $1.option.rawValue }

    /// When it expires, read without unpacking the rest.
    var expiresAt: ToastInstant? {
        ownBytes { buffer throws(Damage) in
            var reader = Reader(buffer, checksText: false)
            return try reader.optional()
        }
    }

    package var unpacked: ToastRecord { ownBytes { buffer throws(Damage) in try Self.unpack(id: id, buffer, checksText: false) } }

    /// Its state and place, read without unpacking the toast, from bytes
    /// that may come from outside the process (a store's row): damage throws.
    var checkedHeader: (state: ToastRecord.State, placement: UInt64) {
        get throws(Damage) {
            try bytes.withUnsafeBufferPointer { buffer throws(Damage) in
                var reader = Reader(buffer, checksText: true)
                let header = try Header(&reader)
                return (header.state, header.placement)
            }
        }
    }

    /// `unpacked`, for bytes from outside the process: damage throws, and
    /// a text that is not UTF-8 is damage.
    var checkedRecord: ToastRecord {
        get throws(Damage) { try bytes.withUnsafeBufferPointer { buffer throws(Damage) in try Self.unpack(id: id, buffer, checksText: true) } }
    }

    /// `read` over bytes this process packed (`init(_:)`), or a store's
    /// row once `StoredToast.checked` read it: they cannot be damaged.
    private func ownBytes<Result>(_ read: (UnsafeBufferPointer<UInt8>) throws(Damage) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { buffer in
            do { return try read(buffer) } catch { preconditionFailure("a packed record is damaged: \(error)") }
        }
    }

    /// Reads what `write` wrote, to the last byte. `checksText`: a string
    /// that is not UTF-8 is damage (for bytes from outside the process);
    /// otherwise it would be repaired as `String(decoding:)` does.
    static func unpack(id: ToastID, _ buffer: UnsafeBufferPointer<UInt8>, checksText: Bool) throws(Damage) -> ToastRecord {
        var reader = Reader(buffer, checksText: checksText)
        let header = try Header(&reader)
        var toast = Toast(message: "")
        try toast.withFields { (fields) throws(Damage) in
            for member in Self.members { try Self.unpack(member, into: &fields, from: &reader) }
        }
        guard reader.remaining == 0 else { throw Damage("\(reader.remaining) bytes follow the last member") }
        return ToastRecord(
            id: id, toast: toast, state: header.state, repeatCount: header.repeatCount, createdAt: header.createdAt,
            presentedAt: header.presentedAt, expiresAt: header.expiresAt, placement: header.placement
        )
    }

    /// The record's own numbers, which `write` puts before the toast.
    struct Header {
        var expiresAt: ToastInstant?
        var repeatCount: Int
        var createdAt: ToastInstant
        var presentedAt: ToastInstant?
        var placement: UInt64
        var state: ToastRecord.State

        init(_ reader: inout Reader) throws(Damage) {
            expiresAt = try reader.optional()
            repeatCount = Int(Int64(bitPattern: try reader.unsigned()))
            createdAt = try reader.signed()
            presentedAt = try reader.optional()
            placement = try reader.unsigned()
            state =
                switch try reader.byte() {
                case 0: .queued
                case 1: .shown
                default: throw Damage("the state has no case of that number")
                }
        }
    }

    /// Why bytes are not a packed record.
    struct Damage: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // Each case is stored as its index here (`allCases` builds a new array
    // on every call).
    static let roles = ToastRole.allCases
    static let alignments = ToastAlignment.allCases
    static let cancellations = CancellationPolicy.allCases

    private static func index<Case: Equatable>(of value: Case, in cases: [Case]) -> UInt8 {
        UInt8(cases.firstIndex(of: value)!)
    }

    /// Writes through a pointer into scratch of `bound` bytes, checked on
    /// every write (a compare; the appends it replaced checked more).
    private struct Writer {
        /// What the record's own numbers can take: three varints (10 bytes
        /// at most each), two optional numbers (11) and the state (1).
        static let headerBound = 3 * 10 + 2 * 11 + 1

        private let scratch: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(_ scratch: UnsafeMutableBufferPointer<UInt8>) { self.scratch = scratch }

        @inline(__always)
        mutating func byte(_ value: UInt8) {
            precondition(count < scratch.count, "a packed record outgrew its bound")
            scratch.baseAddress![count] = value
            count += 1
        }

        mutating func unsigned(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                byte(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            byte(UInt8(rest))
        }

        mutating func signed(_ value: Int64) {
            unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        }

        /// 0 for nil, else 1 and the value.
        mutating func optional(_ value: Int64?) {
            guard let value else { return byte(0) }
            byte(1)
            signed(value)
        }

        mutating func optional(_ value: String?) {
            guard let value else { return byte(0) }
            byte(1)
            string(value)
        }

        mutating func double(_ value: Double) {
            let bits = value.bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }

        /// A length and the bytes.
        mutating func bytes(_ value: [UInt8]) {
            unsigned(UInt64(value.count))
            value.withUnsafeBufferPointer { buffer in
                guard let source = buffer.baseAddress else { return }
                precondition(buffer.count <= scratch.count - count, "a packed record outgrew its bound")
                (scratch.baseAddress! + count).initialize(from: source, count: buffer.count)
                count += buffer.count
            }
        }

        mutating func string(_ value: String) {
            // A native string's bytes in place; `withUTF8` needs a `var`, a copy (a retain and a release).
            if value.utf8.withContiguousStorageIfAvailable({ append(utf8: $0) }) == nil {
                var value = value
                value.withUTF8 { append(utf8: $0) }
            }
        }

        private mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
            unsigned(UInt64(utf8.count))
            guard let source = utf8.baseAddress else { return }
            precondition(utf8.count <= scratch.count - count, "a packed record outgrew its bound")
            (scratch.baseAddress! + count).initialize(from: source, count: utf8.count)
            count += utf8.count
        }
    }

    /// Reads what `Writer` wrote, checking every read: the bytes may come
    /// from the store, which another process or a damaged disk could have
    /// written.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let checksText: Bool
        private(set) var offset = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>, checksText: Bool) {
            self.bytes = bytes
            self.checksText = checksText
        }

        var remaining: Int { bytes.count - offset }

        // Bounds are checked here, as an array would: the pointer's own
        // subscripts check only in debug builds.
        @inline(__always)
        mutating func byte() throws(Damage) -> UInt8 {
            guard offset < bytes.count else { throw Damage("the record ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// Most numbers (a text's length, a small count) take one byte.
        @inline(__always)
        mutating func unsigned() throws(Damage) -> UInt64 {
            if offset < bytes.count, bytes[offset] < 0x80 {
                defer { offset += 1 }
                return UInt64(bytes[offset])
            }
            return try longUnsigned()
        }

        /// Through the base pointer, bounds checked once a byte: reading
        /// with `byte()` was a quarter of the skim's instructions, as a
        /// record's times take six bytes each.
        private mutating func longUnsigned() throws(Damage) -> UInt64 {
            guard let base = bytes.baseAddress else { throw Damage("the record ends early") }
            var value: UInt64 = 0
            var shift: UInt64 = 0
            var index = offset
            while index < bytes.count {
                let next = base[index]
                index += 1
                // The tenth byte holds the 64th bit alone.
                guard shift < 63 || next <= 1 else { throw Damage("a number is longer than 64 bits") }
                value |= UInt64(next & 0x7f) << shift
                if next < 0x80 {
                    offset = index
                    return value
                }
                shift += 7
            }
            throw Damage("the record ends early")
        }

        mutating func signed() throws(Damage) -> Int64 {
            let raw = try unsigned()
            return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        }

        /// A 0 or 1 as false or true; any other byte is damage to `what`.
        mutating func bool(_ what: @autoclosure () -> String = "a flag") throws(Damage) -> Bool {
            switch try byte() {
            case 0: false
            case 1: true
            default: throw Damage("\(what()) is neither 0 nor 1")
            }
        }

        mutating func optional() throws(Damage) -> Int64? {
            try bool("an optional number's presence") ? try signed() : nil
        }

        /// A case's number, checked to be one of `count`.
        mutating func choice(of count: Int, _ name: @autoclosure () -> String) throws(Damage) -> Int {
            let index = Int(try byte())
            guard index < count else { throw Damage("\(name()) has no case \(index)") }
            return index
        }

        mutating func optionalString() throws(Damage) -> String? {
            try bool("an optional text's presence") ? try string() : nil
        }

        mutating func double() throws(Damage) -> Double {
            var bits: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(try byte()) << UInt64(shift) }
            return Double(bitPattern: bits)
        }

        mutating func take() throws(Damage) -> UnsafeBufferPointer<UInt8> {
            let count = try unsigned()
            guard count <= UInt64(remaining) else { throw Damage("a text or image is longer than the record") }
            defer { offset += Int(count) }
            return UnsafeBufferPointer(rebasing: bytes[offset..<offset + Int(count)])
        }

        mutating func byteArray() throws(Damage) -> [UInt8] {
            Array(try take())
        }

        mutating func string() throws(Damage) -> String {
            let utf8 = try take()
            var text = String(decoding: utf8, as: UTF8.self)
            // Decoding repairs what is not UTF-8 (a bad sequence becomes
            // U+FFFD): the text came whole only if its bytes did not change.
            // (`String(validating:)` is generic, and looked up type metadata
            // on every call: 11% of a restart of 100,000 toasts.)
            guard checksText else { return text }
            let whole = text.withUTF8 { decoded in
                decoded.count == utf8.count && (decoded.isEmpty || memcmp(decoded.baseAddress!, utf8.baseAddress!, decoded.count) == 0)
            }
            guard whole else { throw Damage("a text is not UTF-8") }
            return text
        }
    }
}
