// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// A live toast as toastd's store keeps it: a format number, then the
/// record packed as the scheduler packs a waiting one (`PackedRecord`).
///
/// Reading 100,000 live toasts stored as JSON took 42% of a restart
/// (docs/BENCHMARKS.md, "At rest"): the parse, a sort of each object's
/// members, a typed decode through dictionaries. These bytes read in one
/// pass. They come from a file, which another process or a damaged disk
/// may have written, so the read is as strict as the wire's: every length
/// within the bytes, every text UTF-8, every number of a case one that
/// exists, nothing left over, and then the toast checked by
/// `Toast.validate`, as an add is.
public enum StoredToast {
    /// Changes whenever `PackedRecord`'s layout does: the order of
    /// `ToastMember`, of an enumeration's cases, or a member's encoding.
    /// Rows of another format are damage (a newer toastd wrote them).
    public static let format: UInt8 = 1

    /// Why stored bytes are not a live toast.
    public struct Damage: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// `record` in the stored form, lent to `body`.
    public static func withBytes<Result>(of record: ToastRecord, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try PackedRecord.withPacked(record, after: 1) { bytes in
            bytes[0] = format
            return try body(UnsafeBufferPointer(bytes))
        }
    }

    /// A waiting toast's bytes as the scheduler holds them, in the stored
    /// form, lent to `body`: the same bytes as `withBytes(of:)` gives for
    /// its record, without packing it again.
    package static func withBytes<Result>(of packed: PackedRecord, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try packed.bytes.withUnsafeBufferPointer { bytes in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 1) { scratch in
                scratch[0] = format
                if let source = bytes.baseAddress { (scratch.baseAddress! + 1).initialize(from: source, count: bytes.count) }
                return try body(UnsafeBufferPointer(scratch))
            }
        }
    }

    /// The row stored as `bytes` under `id`, as the scheduler keeps it (the
    /// same bytes, without the format number), with its format and id
    /// checked. Its header is checked as the restart orders the rows
    /// (`checkedHeader`), and the whole row as the restart reads it
    /// (`PackedRecord.skim`, or `checked(_:)`).
    package static func row(id: ToastID, from bytes: UnsafeBufferPointer<UInt8>) throws(Damage) -> PackedRecord {
        guard let first = bytes.first else { throw Damage(description: "the toast \(id) is stored empty") }
        guard first == format else {
            throw Damage(description: "the toast \(id) is stored in format \(first), which this toastd does not read (it reads \(format))")
        }
        guard id > 0 else { throw Damage(description: "a toast is stored under id \(id)") }
        return PackedRecord(id: id, bytes: Array(UnsafeBufferPointer(rebasing: bytes[1...])))
    }

    /// The record stored as `bytes` under `id`, checked.
    public static func record(id: ToastID, from bytes: UnsafeBufferPointer<UInt8>) throws(Damage) -> ToastRecord {
        try checked(try row(id: id, from: bytes))
    }

    /// A stored row's record, unpacked and checked: every length within the
    /// bytes, every text UTF-8, every case number one that exists, nothing
    /// left over, then the toast as an add is checked.
    package static func checked(_ row: PackedRecord) throws(Damage) -> ToastRecord {
        let id = row.id
        let record: ToastRecord
        do {
            record = try row.checkedRecord
        } catch {
            throw Damage(description: "the toast \(id) is damaged: \(error)")
        }
        do {
            try record.toast.validate()
        } catch {
            throw Damage(description: "the toast \(id) is not valid: \(error.field.map { $0 + " " } ?? "")\(error.message)")
        }
        // The wire's reader checks a level's range (`FieldReader.level`), `validate` does not.
        if let level = record.toast.level, !PauseLevels.range.contains(level) {
            throw Damage(description: "the toast \(id) has level \(level), outside \(PauseLevels.range)")
        }
        return record
    }
}
