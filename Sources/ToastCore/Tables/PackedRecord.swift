// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// A waiting toast's record, packed into one small byte buffer.
///
/// Nobody reads a queued toast until it is shown, updated, listed or
/// removed, yet it is most of what a busy toastd holds: 100,000 waiting
/// toasts took a 232-byte `ToastRecord` each, plus a heap buffer for every
/// string longer than 15 bytes. Packed, a record is its id beside one
/// buffer of about its text's size (docs/BENCHMARKS.md, section 4).
/// `RecordTable` packs every queued record and unpacks it on each read.
///
/// The format is private to the process (never stored, never sent):
/// `expiresAt` first, so that the table can read it without the rest;
/// then the record's numbers; then each member of the toast in
/// `ToastMember`'s order (one arm each in `pack` and `unpack`): strings as
/// length and UTF-8 bytes, an absent one as a 0 byte. Numbers are LEB128 varints (zigzag for the
/// signed ones), doubles their 8 bits. `unpacked` gives back an equal record.
struct PackedRecord: Sendable {
    let id: ToastID
    private let bytes: [UInt8]

    init(_ record: ToastRecord) {
        id = record.id
        // The record is written into scratch memory through a pointer, then
        // copied once into an array of exactly its size: appending to an
        // array checked its uniqueness and capacity on every byte. `bound`
        // is the most it can take.
        let toast = record.toast
        var bound = Writer.headerBound
        for member in Self.members { bound += Self.bound(of: member, in: toast) }
        bytes = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            var writer = Writer(scratch)
            Self.write(record, into: &writer)
            return Array(UnsafeBufferPointer(start: scratch.baseAddress, count: writer.count))
        }
    }

    private static func write(_ record: ToastRecord, into writer: inout Writer) {
        writer.optional(record.expiresAt)
        writer.unsigned(UInt64(bitPattern: Int64(record.repeatCount)))
        writer.signed(record.createdAt)
        writer.optional(record.presentedAt)
        writer.unsigned(record.placement)
        writer.byte(record.state == .queued ? 0 : 1)
        let toast = record.toast
        for member in members { pack(member, of: toast, into: &writer) }
    }

    // MARK: - The members (one arm each, in `ToastMember`'s order)

    /// `ToastMember.allCases`, made once: that property is another module's,
    /// and builds its array on every call.
    private static let members = ToastMember.allCases

    /// The most bytes `member` packs into: a varint is 10 at most, a double 8,
    /// a string its bytes and a 10-byte length (11 with the byte that says
    /// whether an optional one is there).
    private static func bound(of member: ToastMember, in toast: Toast) -> Int {
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

    private static func pack(_ member: ToastMember, of toast: Toast, into writer: inout Writer) {
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

    private static func unpack(_ member: ToastMember, into toast: inout Toast.Fields, from reader: inout Reader) {
        switch member {
        case .message: toast.message = reader.string()
        case .title: toast.title = reader.optionalString()
        case .icon: toast.icon = reader.optionalString()
        case .role: toast.role = Self.roles[Int(reader.byte())]
        case .duration:
            toast.duration =
                switch reader.byte() {
                case 0: nil
                case 1: .short
                case 2: .long
                case 3: .longer
                case 4: .indefinite
                default: .seconds(reader.double())
                }
        case .alignment: toast.alignment = Self.alignments[Int(reader.byte())]
        case .scene: toast.scene = reader.string()
        case .reuseID: toast.reuseID = reader.optionalString()
        case .progress:
            toast.progress =
                switch reader.byte() {
                case 0: .none
                case 1: .indeterminate
                default: .fraction(reader.double())
                }
        case .dismissible: toast.dismissible = reader.byte() != 0
        case .closeButton: toast.closeButton = reader.byte() != 0
        case .actions:
            let count = Int(reader.unsigned())
            guard count > 0 else { return }
            var actions: [ToastAction] = []
            actions.reserveCapacity(count)
            for _ in 0..<count {
                let id = reader.string()
                actions.append(ToastAction(id: id, label: reader.string()))
            }
            toast.actions = actions
        case .source: toast.source = reader.optionalString()
        case .cancellation: toast.cancellation = Self.cancellations[Int(reader.byte())]
        case .invalidation: toast.invalidation = InvalidationOptions(rawValue: reader.byte())
        case .resident: toast.resident = reader.byte() != 0
        case .transient: toast.transient = reader.byte() != 0
        case .level: toast.level = reader.optional().map { Int($0) }
        case .markup: toast.markup = reader.optionalString()
        case .category: toast.category = reader.optionalString()
        case .desktopEntry: toast.desktopEntry = reader.optionalString()
        case .soundName: toast.soundName = reader.optionalString()
        case .urgency:
            let level = reader.byte()
            toast.urgency = level == 0 ? nil : ToastUrgency(level: level - 1)
        case .dedupe: toast.dedupe = reader.byte() != 0
        case .image:
            switch reader.byte() {
            case 0: toast.image = nil
            case 1: toast.image = .path(reader.string())
            default:
                let width = Int(reader.unsigned())
                let height = Int(reader.unsigned())
                toast.image = .pixels(width: width, height: height, rgba: reader.byteArray())
            }
        }
    }

    /// When it expires, read without unpacking the rest.
    var expiresAt: ToastInstant? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer)
            return reader.optional()
        }
    }

    var unpacked: ToastRecord {
        bytes.withUnsafeBufferPointer(unpack)
    }

    private func unpack(_ buffer: UnsafeBufferPointer<UInt8>) -> ToastRecord {
        var reader = Reader(buffer)
        let expiresAt = reader.optional()
        let repeatCount = Int(Int64(bitPattern: reader.unsigned()))
        let createdAt = reader.signed()
        let presentedAt = reader.optional()
        let placement = reader.unsigned()
        let state: ToastRecord.State = reader.byte() == 0 ? .queued : .shown
        var toast = Toast(message: "")
        toast.withFields { fields in
            for member in Self.members { Self.unpack(member, into: &fields, from: &reader) }
        }
        return ToastRecord(
            id: id, toast: toast, state: state, repeatCount: repeatCount, createdAt: createdAt,
            presentedAt: presentedAt, expiresAt: expiresAt, placement: placement
        )
    }

    // Each case is stored as its index here (`allCases` builds a new array
    // on every call).
    private static let roles = ToastRole.allCases
    private static let alignments = ToastAlignment.allCases
    private static let cancellations = CancellationPolicy.allCases

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
            var value = value
            value.withUTF8 { utf8 in
                unsigned(UInt64(utf8.count))
                guard let source = utf8.baseAddress else { return }
                precondition(utf8.count <= scratch.count - count, "a packed record outgrew its bound")
                (scratch.baseAddress! + count).initialize(from: source, count: utf8.count)
                count += utf8.count
            }
        }
    }

    /// Reads what `Writer` wrote (the bytes are this process's own).
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        // Bounds are checked here, as an array would: the pointer's own
        // subscripts check only in debug builds.
        mutating func byte() -> UInt8 {
            precondition(offset < bytes.count, "a packed record ended early")
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func unsigned() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = byte()
                value |= UInt64(next & 0x7f) << shift
                if next < 0x80 { return value }
                shift += 7
            }
        }

        mutating func signed() -> Int64 {
            let raw = unsigned()
            return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        }

        mutating func optional() -> Int64? {
            byte() == 0 ? nil : signed()
        }

        mutating func optionalString() -> String? {
            byte() == 0 ? nil : string()
        }

        mutating func double() -> Double {
            var bits: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(byte()) << UInt64(shift) }
            return Double(bitPattern: bits)
        }

        mutating func byteArray() -> [UInt8] {
            let count = Int(unsigned())
            precondition(count <= bytes.count - offset, "a packed record ended early")
            defer { offset += count }
            return Array(UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]))
        }

        mutating func string() -> String {
            let count = Int(unsigned())
            precondition(count <= bytes.count - offset, "a packed record ended early")
            defer { offset += count }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self)
        }
    }
}
