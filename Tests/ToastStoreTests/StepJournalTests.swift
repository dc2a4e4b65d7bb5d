// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastCore

@testable import ToastStore

/// Small steps journaled, not committed: what a start finds from the journal.
@Suite("Step journal")
struct StepJournalTests {
    typealias Session = ToastStoreTests
    static let key = SipHash.Key(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)

    /// Journals `batches` and commits none, then closes the store (a
    /// daemon killed before its commit thread applied them).
    static func journalOnly(_ batches: some Sequence<ToastStore.Batch>, in directory: String) throws {
        let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
        for batch in batches { try store.journal(batch) }
    }

    /// Every change of the session journaled and none committed (a daemon
    /// killed before its commit thread applied them): the next start finds
    /// what a commit of each would have left, and an empty journal.
    @Test func stepsOnlyInTheJournalAreThereAfterARestart() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (service, batches) = Session.session()
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
            for batch in batches { try store.journal(batch) }
            #expect(store.journal.lastNumber == UInt64(batches.count))
            #expect(try store.storedRows().isEmpty, "journaled, not committed")
        }
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 100)
        Session.expectSession(loaded, of: service)
        #expect(loaded.notes.contains { $0.contains("applied \(batches.count) journaled steps") }, "\(loaded.notes)")
        #expect(store.journal.sizes == [0, 0])
        // Numbering goes on after the applied records.
        #expect(store.journal.lastNumber == UInt64(batches.count))
    }

    /// A record the database already holds is not applied again: a toast
    /// journaled, committed with the record's number, then removed by a
    /// commit of its own stays removed, though its record is still in the
    /// journal file (a daemon killed before it emptied the file).
    @Test func aRecordTheDatabaseHoldsIsNotAppliedAgain() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var service = ToastService(instance: "i")
        func step(_ line: String) -> ToastStore.Batch {
            let response = service.respond(toLine: Array(line.utf8), defaultSource: nil, now: 0)
            var batch = ToastStore.Batch()
            for publication in service.publish(response.effects) { batch.note(publication.event) }
            batch.nextID = service.scheduler.nextToastID
            batch.lastSequence = service.scheduler.lastSequence
            return batch
        }
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: 10)
            var added = step(#"{"op":"add","toast":{"message":"once","duration":"indefinite"}}"#)
            try store.journal(added)
            added.journaled = store.journal.lastNumber
            try store.commit(added)
            try store.commit(step(#"{"op":"remove","id":1}"#))
            #expect(store.journal.sizes[0] > 0, "the record is still in the file")
        }
        let (_, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        #expect(loaded.state.records.isEmpty, "the removed toast did not come back")
        #expect(loaded.history.map(\.reason) == ["removed"])
        #expect(!loaded.notes.contains { $0.contains("applied") }, "\(loaded.notes)")
    }

    /// A record cut short (a crash in the middle of a write, a full disk)
    /// ends what is read of its file: the records before it are applied,
    /// and the start says so.
    @Test func aTornLastRecordIsLeftOutAndTheOnesBeforeItApplied() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.journalOnly(Session.session().1.prefix(2), in: directory)
        let file = directory + "/" + StepJournal.fileNames[0]
        let bytes = try Data(contentsOf: URL(filePath: file))
        try bytes.dropLast(3).write(to: URL(filePath: file))
        let (_, loaded) = try ToastStore.open(directory: directory, historySize: 100)
        #expect(loaded.state.records.map(\.toast.message) == ["a"])
        #expect(loaded.notes.contains { $0.contains("incomplete record") }, "\(loaded.notes)")
        #expect(loaded.notes.contains { $0.contains("applied 1 journaled step ") }, "\(loaded.notes)")
    }

    /// A database found corrupt is moved aside with its journal: the
    /// journal's records are changes to it, and a fresh database must not
    /// start with a few of its toasts.
    @Test func aCorruptDatabaseTakesItsJournalAside() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.journalOnly(Session.session().1, in: directory)
        let journaled = try Data(contentsOf: URL(filePath: directory + "/" + StepJournal.fileNames[0]))
        try Data(repeating: 0x5A, count: 8192).write(to: URL(filePath: directory + "/" + ToastStore.fileName))
        try? FileManager.default.removeItem(atPath: directory + "/" + ToastStore.fileName + "-wal")
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 100, now: 1_700_000_000)
        #expect(loaded.state.records.isEmpty)
        #expect(loaded.state.nextID == 1)
        #expect(store.journal.sizes == [0, 0])
        let aside = directory + "/" + ToastStore.fileName + ".corrupt-1700000000.journal-a"
        #expect(try Data(contentsOf: URL(filePath: aside)) == journaled)
    }

    /// A record reads back as the rows and counters it was written from,
    /// every kind of row at once: toasts written and deleted, the history
    /// cleared, an entry removed and one ended, sources bound and released.
    @Test func aRecordReadsBackAsTheRowsItWasWrittenFrom() throws {
        let (service, _) = Session.session()
        let records = service.scheduler.state.records
        var rows = ToastStore.Batch.Rows()
        // Half of them as a waiting toast's packed bytes, which journal as
        // the record's own stored form and read back as the record.
        for (index, record) in records.enumerated() {
            rows.upserts[record.id] = index.isMultiple(of: 2) ? .packed(PackedRecord(record)) : .record(record)
        }
        rows.deletes = [41, 42]
        rows.historyCleared = true
        rows.historyRemovals = [7]
        rows.ended = [ToastHistory.Entry(record: records[0], shown: true, reason: "dismissed", endedAt: -5, seq: 99)]
        rows.bound = ["s1": true, "t[2]": false]
        let counters = ToastStore.Counters(nextID: 12, lastSequence: 1 << 40, pausedLevel: -1, modes: ["work", "focus"])
        var writer = JournalRecord.Writer(bytes: [])
        JournalRecord.write(rows, counters, into: &writer)
        let (read, readCounters) = try JournalRecord.read(writer.bytes[...])
        #expect(records.count > 1)
        #expect(read.upserts == Dictionary(uniqueKeysWithValues: records.map { ($0.id, .record($0)) }))
        #expect(read.deletes == rows.deletes)
        #expect(read.historyCleared && read.historyRemovals == [7])
        #expect(read.ended == rows.ended)
        #expect(read.bound == rows.bound)
        #expect(readCounters == counters)
        // A payload cut short is an error, not a partial step.
        #expect(throws: StepJournal.Failure.self) { try JournalRecord.read(writer.bytes.dropLast()) }
    }

    /// A live toast is journaled as its stored bytes (`StoredToast`); one a
    /// toastd before those journaled as its JSON body still reads, so that a
    /// journal left by a crash survives the upgrade. Damaged bytes are an
    /// unusable record, not a trap.
    @Test func aLiveToastReadsInEitherForm() throws {
        let record = Session.session().0.scheduler.state.records[0]
        func payload(_ write: (inout JournalRecord.Writer) -> Void) -> [UInt8] {
            var writer = JournalRecord.Writer(bytes: [])
            JournalRecord.write(ToastStore.Batch.Rows(), ToastStore.Counters(nextID: 9, lastSequence: 3, pausedLevel: 0, modes: []), into: &writer)
            // Splice one upsert in place of the empty one (its count, after the counters).
            var bytes = writer.bytes
            let countAt = 8 + 8 + 8 + 4
            bytes.replaceSubrange(countAt..<countAt + 4, with: [1, 0, 0, 0])
            var upsert = JournalRecord.Writer(bytes: [])
            upsert.integer(record.id)
            write(&upsert)
            bytes.insert(contentsOf: upsert.bytes, at: countAt + 4)
            return bytes
        }
        let packed = payload { writer in StoredToast.withBytes(of: record) { writer.raw($0) } }
        let json = payload { $0.record(record) }
        #expect(packed != json)
        #expect(try JournalRecord.read(packed[...]).0.upserts == [record.id: .record(record)])
        #expect(try JournalRecord.read(json[...]).0.upserts == [record.id: .record(record)])
        // The toast's last byte (its `dedupe` flag), before the 17 bytes of empty rows after it.
        var damaged = packed
        damaged[damaged.count - 18] ^= 0xFF
        #expect {
            try JournalRecord.read(damaged[...])
        } throws: { error in
            "\(error)".contains("a flag is neither 0 nor 1")
        }
    }

    /// Records are read in order across both files up to the first that is
    /// not whole or does not match its hash.
    @Test func parsingStopsAtTheFirstRecordThatIsNotIntact() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try StepJournal(directory: directory, lastNumber: 7, key: Self.key)
        for text in ["one", "two", "three"] { try journal.append { $0.text(text) } }
        #expect(journal.lastNumber == 10)
        let bytes = try [UInt8](Data(contentsOf: URL(filePath: directory + "/" + StepJournal.fileNames[0])))
        let whole = StepJournal.parse(bytes, key: Self.key)
        #expect(whole.complete && whole.records.map(\.number) == [8, 9, 10])
        var flipped = bytes
        let second = StepJournal.headerSize + whole.records[0].payload.count
        flipped[second + StepJournal.headerSize] ^= 1
        let broken = StepJournal.parse(flipped, key: Self.key)
        #expect(!broken.complete && broken.records.map(\.number) == [8], "the second record's payload no longer matches its hash")
        // After a turn, records go to the other file; both are read, in order.
        #expect(journal.turn() == 0)
        try journal.append { $0.text("four") }
        #expect(journal.turn() == nil, "the first file still waits to be emptied")
        #expect(journal.records().records.map(\.number) == [8, 9, 10, 11])
        try journal.empty(0)
        #expect(journal.records().records.map(\.number) == [11])
        #expect(journal.turn() == 1)
    }
}
