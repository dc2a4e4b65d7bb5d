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
/// then the record's numbers and the toast's small fields; then its strings
/// as length and UTF-8 bytes. Numbers are LEB128 varints (zigzag for the
/// signed ones), doubles their 8 bits. `unpacked` gives back an equal record.
struct PackedRecord: Sendable {
    let id: ToastID
    private let bytes: [UInt8]

    init(_ record: ToastRecord) {
        id = record.id
        let toast = record.toast
        // The record is written into scratch memory through a pointer, then
        // copied once into an array of exactly its size: appending to an
        // array checked its uniqueness and capacity on every byte. `bound`
        // is the most it can take: every number at its longest varint (ten
        // bytes) or double, every string with a ten-byte length.
        var texts = toast.message.utf8.count + toast.scene.utf8.count + (toast.title?.utf8.count ?? 0)
        texts += (toast.icon?.utf8.count ?? 0) + (toast.reuseID?.utf8.count ?? 0) + (toast.source?.utf8.count ?? 0)
        for action in toast.actions { texts += action.id.utf8.count + action.label.utf8.count }
        let bound = Writer.fixedBound + texts + 20 * toast.actions.count
        bytes = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            var writer = Writer(scratch)
            Self.write(record, into: &writer)
            return Array(UnsafeBufferPointer(start: scratch.baseAddress, count: writer.count))
        }
    }

    private static func write(_ record: ToastRecord, into writer: inout Writer) {
        let toast = record.toast
        writer.optional(record.expiresAt)
        writer.unsigned(UInt64(bitPattern: Int64(record.repeatCount)))
        writer.signed(record.createdAt)
        writer.optional(record.presentedAt)
        writer.unsigned(record.placement)
        writer.byte(record.state == .queued ? 0 : 1)
        var flags: UInt16 = 0
        if toast.title != nil { flags |= Flag.title }
        if toast.icon != nil { flags |= Flag.icon }
        if toast.reuseID != nil { flags |= Flag.reuseID }
        if toast.source != nil { flags |= Flag.source }
        if toast.level != nil { flags |= Flag.level }
        if toast.dismissible { flags |= Flag.dismissible }
        if toast.closeButton { flags |= Flag.closeButton }
        if toast.resident { flags |= Flag.resident }
        if toast.transient { flags |= Flag.transient }
        writer.unsigned(UInt64(flags))
        writer.byte(Self.index(of: toast.role, in: Self.roles))
        writer.byte(Self.index(of: toast.alignment, in: Self.alignments))
        writer.byte(Self.index(of: toast.cancellation, in: Self.cancellations))
        writer.byte(toast.invalidation.rawValue)
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
        switch toast.progress {
        case .none: writer.byte(0)
        case .indeterminate: writer.byte(1)
        case .fraction(let fraction):
            writer.byte(2)
            writer.double(fraction)
        }
        if let level = toast.level { writer.signed(Int64(level)) }
        writer.string(toast.message)
        writer.string(toast.scene)
        if let title = toast.title { writer.string(title) }
        if let icon = toast.icon { writer.string(icon) }
        if let reuseID = toast.reuseID { writer.string(reuseID) }
        if let source = toast.source { writer.string(source) }
        writer.unsigned(UInt64(toast.actions.count))
        for action in toast.actions {
            writer.string(action.id)
            writer.string(action.label)
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
        let flags = UInt16(truncatingIfNeeded: reader.unsigned())
        let role = Self.roles[Int(reader.byte())]
        let alignment = Self.alignments[Int(reader.byte())]
        let cancellation = Self.cancellations[Int(reader.byte())]
        let invalidation = InvalidationOptions(rawValue: reader.byte())
        let duration: ToastDuration? =
            switch reader.byte() {
            case 0: nil
            case 1: .short
            case 2: .long
            case 3: .longer
            case 4: .indefinite
            default: .seconds(reader.double())
            }
        let progress: ToastProgress =
            switch reader.byte() {
            case 0: .none
            case 1: .indeterminate
            default: .fraction(reader.double())
            }
        let level = flags & Flag.level != 0 ? Int(reader.signed()) : nil
        let message = reader.string()
        let scene = reader.string()
        var toast = Toast(
            message: message,
            title: flags & Flag.title != 0 ? reader.string() : nil,
            icon: flags & Flag.icon != 0 ? reader.string() : nil,
            role: role, duration: duration, alignment: alignment, scene: scene,
            reuseID: flags & Flag.reuseID != 0 ? reader.string() : nil,
            progress: progress,
            dismissible: flags & Flag.dismissible != 0,
            closeButton: flags & Flag.closeButton != 0,
            source: flags & Flag.source != 0 ? reader.string() : nil,
            cancellation: cancellation, invalidation: invalidation
        )
        let actionCount = Int(reader.unsigned())
        if actionCount > 0 {
            toast.actions.reserveCapacity(actionCount)
            for _ in 0..<actionCount {
                let id = reader.string()
                toast.actions.append(ToastAction(id: id, label: reader.string()))
            }
        }
        toast.resident = flags & Flag.resident != 0
        toast.transient = flags & Flag.transient != 0
        toast.level = level
        return ToastRecord(
            id: id, toast: toast, state: state, repeatCount: repeatCount, createdAt: createdAt,
            presentedAt: presentedAt, expiresAt: expiresAt, placement: placement
        )
    }

    private enum Flag {
        static let title: UInt16 = 1 << 0
        static let icon: UInt16 = 1 << 1
        static let reuseID: UInt16 = 1 << 2
        static let source: UInt16 = 1 << 3
        static let level: UInt16 = 1 << 4
        static let dismissible: UInt16 = 1 << 5
        static let closeButton: UInt16 = 1 << 6
        static let resident: UInt16 = 1 << 7
        static let transient: UInt16 = 1 << 8
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
        /// What everything but the strings' bytes (and the actions' lengths,
        /// 20 an action) can take: three numbers, the flags and the level
        /// (a varint is 10 bytes at most), two optional numbers (11), the
        /// state and four small fields (5), a duration and a progress (9
        /// each), six strings' lengths and the actions' count (10 each).
        static let fixedBound = 5 * 10 + 2 * 11 + 5 + 2 * 9 + 7 * 10

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

        mutating func double(_ value: Double) {
            let bits = value.bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
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

        mutating func double() -> Double {
            var bits: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(byte()) << UInt64(shift) }
            return Double(bitPattern: bits)
        }

        mutating func string() -> String {
            let count = Int(unsigned())
            precondition(count <= bytes.count - offset, "a packed record ended early")
            defer { offset += count }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self)
        }
    }
}
