// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// A journaled step's payload (`StepJournal`): the rows and counters the
/// step leaves in the database, as a commit of it would write them.
///
/// Counters first (next id, last sequence, paused level, modes), then the
/// toasts written (id and stored bytes, `StoredToast`; a record journaled
/// before those was its JSON body, which starts with `{` and still reads),
/// the toasts deleted, whether the
/// history was cleared, the history entries removed, the entries ended, and
/// the sources bound or released. Integers are little-endian, texts a
/// UInt32 length and their UTF-8.
enum JournalRecord {
    static func write(_ rows: ToastStore.Batch.Rows, _ counters: ToastStore.Counters, into out: inout Writer) {
        out.integer(counters.nextID)
        out.integer(counters.lastSequence)
        out.integer(UInt64(bitPattern: Int64(counters.pausedLevel)))
        out.count(counters.modes.count)
        for mode in counters.modes { out.text(mode) }
        out.count(rows.upserts.count)
        for (id, row) in rows.upserts {
            out.integer(id)
            row.withStoredBytes { out.raw($0) }
        }
        out.count(rows.deletes.count)
        for id in rows.deletes { out.integer(id) }
        out.byte(rows.historyCleared ? 1 : 0)
        out.count(rows.historyRemovals.count)
        for id in rows.historyRemovals { out.integer(id) }
        out.count(rows.ended.count)
        for entry in rows.ended {
            out.integer(entry.seq)
            out.integer(UInt64(bitPattern: entry.endedAt))
            out.byte(entry.shown ? 1 : 0)
            out.text(entry.reason)
            out.record(entry.record)
        }
        out.count(rows.bound.count)
        for (source, bound) in rows.bound {
            out.text(source)
            out.byte(bound ? 1 : 0)
        }
    }

    static func read(_ payload: ArraySlice<UInt8>) throws(StepJournal.Failure) -> (ToastStore.Batch.Rows, ToastStore.Counters) {
        var input = Reader(bytes: payload)
        let nextID = try input.integer()
        let lastSequence = try input.integer()
        let pausedLevel = Int(Int64(bitPattern: try input.integer()))
        var modes: [String] = []
        for _ in 0..<(try input.count()) { modes.append(try input.text()) }
        var rows = ToastStore.Batch.Rows()
        for _ in 0..<(try input.count()) {
            let id = try input.integer()
            rows.upserts[id] = .record(try input.liveToast(id: id))
        }
        for _ in 0..<(try input.count()) { rows.deletes.insert(try input.integer()) }
        rows.historyCleared = try input.byte() == 1
        for _ in 0..<(try input.count()) { rows.historyRemovals.append(try input.integer()) }
        for _ in 0..<(try input.count()) {
            let seq = try input.integer()
            let endedAt = Int64(bitPattern: try input.integer())
            let shown = try input.byte() == 1
            let reason = try input.text()
            rows.ended.append(ToastHistory.Entry(record: try input.record(), shown: shown, reason: reason, endedAt: endedAt, seq: seq))
        }
        for _ in 0..<(try input.count()) {
            let source = try input.text()
            rows.bound[source] = try input.byte() == 1
        }
        guard input.isAtEnd else { throw .unusable("a journal record has \(input.remaining) bytes past its end") }
        return (rows, ToastStore.Counters(nextID: nextID, lastSequence: lastSequence, pausedLevel: pausedLevel, modes: modes))
    }

    struct Writer {
        var bytes: [UInt8]

        mutating func byte(_ value: UInt8) { bytes.append(value) }

        mutating func integer(_ value: UInt64) { append(value, width: 8) }

        mutating func count(_ value: Int) { append(UInt64(truncatingIfNeeded: value), width: 4) }

        /// `value`'s low `width` bytes, little-endian, at `offset` in place
        /// of what is there (a record's header, once its payload is written).
        mutating func overwrite(_ value: UInt64, width: Int, at offset: Int) {
            for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }

        private mutating func append(_ value: UInt64, width: Int) {
            for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }

        mutating func raw(_ buffer: UnsafeBufferPointer<UInt8>) {
            count(buffer.count)
            bytes.append(contentsOf: buffer)
        }

        mutating func text(_ text: String) {
            var text = text
            text.withUTF8 { raw($0) }
        }

        /// A history entry's record: its JSON body (`WireEncoder.withStoredRecord`),
        /// as every journal has written it. Only a crash's journal is read;
        /// the database keeps the entry packed (`StoredToast`).
        mutating func record(_ record: ToastRecord) {
            WireEncoder.withStoredRecord(record) { raw($0) }
        }
    }

    struct Reader {
        let bytes: ArraySlice<UInt8>
        private var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            offset = bytes.startIndex
        }

        var isAtEnd: Bool { offset == bytes.endIndex }
        var remaining: Int { bytes.endIndex - offset }

        private mutating func take(_ count: Int) throws(StepJournal.Failure) -> ArraySlice<UInt8> {
            guard count >= 0, count <= remaining else { throw .unusable("a journal record ends early") }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func byte() throws(StepJournal.Failure) -> UInt8 { try take(1).first! }

        mutating func integer() throws(StepJournal.Failure) -> UInt64 { try little(width: 8) }

        mutating func count() throws(StepJournal.Failure) -> Int { Int(try little(width: 4)) }

        private mutating func little(width: Int) throws(StepJournal.Failure) -> UInt64 {
            try take(width).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func text() throws(StepJournal.Failure) -> String {
            try Self.text(try take(try count()))
        }

        private static func text(_ bytes: ArraySlice<UInt8>) throws(StepJournal.Failure) -> String {
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .unusable("a journal record holds a text that is not UTF-8") }
            return text
        }

        /// A live toast: its stored bytes, or its JSON body in a record
        /// journaled before those (a JSON object starts with `{`, the stored
        /// bytes with their format number).
        mutating func liveToast(id: ToastID) throws(StepJournal.Failure) -> ToastRecord {
            let stored = try take(try count())
            if stored.first == UInt8(ascii: "{") { return try Self.decode(json: try Self.text(stored)) }
            do {
                return try stored.withUnsafeBufferPointer { (buffer) throws(StoredToast.Damage) in try StoredToast.record(id: id, from: buffer) }
            } catch {
                throw .unusable("a journal record holds a toast that is not valid: \(error)")
            }
        }

        /// A history entry's record: its JSON body.
        mutating func record() throws(StepJournal.Failure) -> ToastRecord {
            try Self.decode(json: try text())
        }

        private static func decode(json body: String) throws(StepJournal.Failure) -> ToastRecord {
            do {
                return try WireDecoder.decodeRecord(try JSONValue.parse(body))
            } catch {
                throw .unusable("a journal record holds a toast that is not valid: \(error)")
            }
        }
    }
}
