// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastCore

@testable import ToastStore

extension ToastStore.Loaded {
    /// The restored scheduler's state, as the tests compare it.
    var state: SchedulerStateMachine.State { scheduler.state }
}

/// The store against a real SQLite database in a temporary directory.
@Suite("Durable state store")
struct ToastStoreTests {
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "toastd-store-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A session with every kind of change: shown and waiting toasts, a
    /// dedupe that moves a shown toast, ends, a pause. Returns the service
    /// and the batches its steps produced. With `packedWaiting`, a waiting
    /// toast's row is noted as the scheduler's packed bytes, as toastd
    /// notes it; else as the event's record.
    static func session(packedWaiting: Bool = true) -> (ToastService, [ToastStore.Batch]) {
        var service = ToastService(configuration: SchedulerConfiguration(maxVisible: 2), instance: "i")
        var batches: [ToastStore.Batch] = []
        let lines = [
            #"{"op":"add","toast":{"message":"a","duration":"indefinite","source":"s1"}}"#,
            #"{"op":"add","toast":{"message":"b","duration":"indefinite","reuseId":"b","source":"s2"}}"#,
            #"{"op":"add","toast":{"message":"c","role":"failure","actions":[{"id":"x","label":"X"}]}}"#,
            #"{"op":"add","toast":{"message":"d","progress":0.5,"invalidation":["contextChanged"],"source":"s1"}}"#,
            #"{"op":"add","toast":{"message":"a","duration":"indefinite","source":"s1"}}"#,
            #"{"op":"remove","id":2}"#,
            #"{"op":"pause","level":70}"#,
            #"{"op":"add","toast":{"message":"e","scene":"other"}}"#,
            #"{"op":"mode","add":"work"}"#,
        ]
        for (index, line) in lines.enumerated() {
            let response = service.respond(toLine: Array(line.utf8), defaultSource: "t[1]", now: Int64(index) * 10)
            var batch = ToastStore.Batch()
            for publication in service.publish(response.effects) {
                batch.note(publication.event, waiting: packedWaiting ? publication.waiting : nil)
            }
            batch.nextID = service.scheduler.nextToastID
            batch.lastSequence = service.scheduler.lastSequence
            batch.pausedLevel = service.scheduler.pausedLevel
            batch.modes = service.scheduler.modes
            batches.append(batch)
        }
        return (service, batches)
    }

    static func sorted(_ records: [ToastRecord]) -> [ToastRecord] { records.sorted { $0.id < $1.id } }

    /// What a start found is what `session()` left.
    static func expectSession(_ loaded: ToastStore.Loaded, of service: ToastService) {
        let expected = service.scheduler.state
        #expect(sorted(loaded.state.records) == sorted(expected.records))
        #expect(loaded.state.pausedLevel == 70)
        #expect(loaded.state.modes == ["work"])
        #expect(loaded.state.nextID == expected.nextID)
        #expect(loaded.state.lastSequence == expected.lastSequence)
        #expect(loaded.history.map(\.record.id) == [2])
        #expect(loaded.history.first?.reason == "removed")
        // Every member of the ended toast, as the history showed it.
        #expect(loaded.history == Array(service.history.all))
    }

    /// A waiting toast written from the scheduler's packed bytes is stored
    /// byte for byte as its record would be, in the database and in the
    /// journal alike.
    @Test func aWaitingToastsPackedBytesAreStoredAsItsRecordWouldBe() throws {
        let (_, packedBatches) = Self.session(packedWaiting: true)
        let (_, recordBatches) = Self.session(packedWaiting: false)
        let packedRows = packedBatches.map { $0.rows.upserts.values.filter { if case .packed = $0 { true } else { false } }.count }
        #expect(packedRows.reduce(0, +) >= 2, "the session has waiting toasts whose rows are noted packed")
        var stored: [[String]] = []
        for (batches, journaled) in [(packedBatches, false), (recordBatches, false), (packedBatches, true), (recordBatches, true)] {
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            do {
                let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
                for batch in batches {
                    if journaled { try store.journal(batch) } else { try store.commit(batch) }
                }
            }
            // A journaled step reaches the file at the next start.
            let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
            stored.append(try store.storedRows())
        }
        #expect(!stored[0].isEmpty)
        #expect(stored[0] == stored[1])
        #expect(stored[2] == stored[3])
        #expect(stored[0] == stored[2])
    }

    @Test func whatIsCommittedIsWhatTheNextStartFinds() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (service, batches) = Self.session()
        var instance = ""
        do {
            let (store, loaded) = try ToastStore.open(directory: directory, historySize: 100)
            #expect(loaded.state.records.isEmpty)
            instance = loaded.instance
            for batch in batches { try store.commit(batch) }
        }
        let (_, loaded) = try ToastStore.open(directory: directory, historySize: 100)
        Self.expectSession(loaded, of: service)
        #expect(loaded.instance == instance)

        // A scheduler restored from it lists the same stacks in the same order.
        let restored = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 2), restoring: loaded.state)
        #expect(restored.snapshot().toasts.map(\.id) == service.scheduler.snapshot().toasts.map(\.id))
        #expect(restored.snapshot().toasts == service.scheduler.snapshot().toasts)
    }

    /// A commit writes only the counters that changed since the last one;
    /// what the next start reads is still the newest value of each, also
    /// when one goes back to an earlier value or a new store takes over.
    @Test func countersReadBackAsLastCommittedWhenOnlyChangesAreWritten() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func batch(_ nextID: ToastID, _ seq: UInt64, _ paused: Int, _ modes: [String]) -> ToastStore.Batch {
            var batch = ToastStore.Batch()
            batch.nextID = nextID
            batch.lastSequence = seq
            batch.pausedLevel = paused
            batch.modes = modes
            return batch
        }
        let steps = [
            [batch(5, 10, 70, ["work"]), batch(5, 11, 0, []), batch(6, 12, 0, [])],
            [batch(6, 13, 0, []), batch(6, 14, 70, ["work", "dnd"]), batch(6, 15, 70, ["work", "dnd"])],
        ]
        var expected = (nextID: ToastID(1), seq: UInt64(0), paused: 0, modes: [String]())
        for run in steps {
            let (store, loaded) = try ToastStore.open(directory: directory, historySize: 10)
            #expect(loaded.state.nextID == expected.nextID)
            #expect(loaded.state.lastSequence == expected.seq)
            #expect(loaded.state.pausedLevel == expected.paused)
            // The restored scheduler keeps its modes sorted (a set).
            #expect(loaded.state.modes == expected.modes.sorted())
            for step in run {
                try store.commit(step)
                expected = (step.nextID, step.lastSequence, step.pausedLevel, step.modes)
            }
        }
        let (_, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        #expect(loaded.state.nextID == 6)
        #expect(loaded.state.lastSequence == 15)
        #expect(loaded.state.pausedLevel == 70)
        #expect(loaded.state.modes == ["dnd", "work"])
    }

    /// A restart shows the history the daemon showed. The file is trimmed
    /// as `ToastHistory` trims itself (down to the size once it holds the
    /// size and its slack), so an entry taken out by `restore` is replaced
    /// by the same older entry in both, and the file never holds more than
    /// the size and the slack.
    @Test func aRestartShowsTheHistoryTheDaemonShowed() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 3
        var service = ToastService(instance: "i", history: ToastHistory(capacity: size))
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: size)
            func step(_ lines: [String]) throws {
                var batch = ToastStore.Batch()
                for line in lines {
                    let response = service.respond(toLine: Array(line.utf8), defaultSource: nil, now: 0)
                    for publication in service.publish(response.effects) { batch.note(publication.event) }
                    if let change = response.historyChange { batch.note(change) }
                }
                batch.nextID = service.scheduler.nextToastID
                batch.lastSequence = service.scheduler.lastSequence
                try store.commit(batch)
            }
            // Forty entries: the history (3, and 16 behind them) is
            // trimmed to 3 at the 20th and the 37th, leaving 35...40.
            for index in 1...40 {
                try step([#"{"op":"add","toast":{"message":"m\#(index)"}}"#, #"{"op":"remove","id":\#(index)}"#])
            }
            #expect(service.history.all.map(\.record.id) == [38, 39, 40])
            // 40 leaves the history (as toast 41); 37 takes its place.
            try step([#"{"op":"restore","id":40}"#])
        }
        #expect(service.history.all.map(\.record.id) == [37, 38, 39])
        #expect(try Self.reopen(directory, historySize: size).history.suffix(size).map(\.record.id) == [37, 38, 39])
        // The file holds what the memory holds, behind the shown three too.
        #expect(try Self.reopen(directory, historySize: 100).history.map(\.record.id) == [35, 36, 37, 38, 39])
        // A daemon started from it shows and keeps the same.
        let restarted = ToastHistory(capacity: size, entries: try Self.reopen(directory, historySize: size).history)
        #expect(restarted.all.map(\.record.id) == [37, 38, 39])
    }

    /// A toast that ends and is removed from the history in one batch (a
    /// client's pipelined `remove`, then the history removal, read in one
    /// burst) is not in the next start's history.
    @Test func anEntryRemovedInTheBatchItEndedInStaysRemoved() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var service = ToastService(instance: "i")
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: 10)
            var batch = ToastStore.Batch()
            for line in [#"{"op":"add","toast":{"message":"kept"}}"#, #"{"op":"add","toast":{"message":"gone"}}"#, #"{"op":"remove","id":1}"#, #"{"op":"remove","id":2}"#] {
                let response = service.respond(toLine: Array(line.utf8), defaultSource: nil, now: 0)
                for publication in service.publish(response.effects) { batch.note(publication.event) }
            }
            batch.note(.removed(2))
            batch.nextID = service.scheduler.nextToastID
            batch.lastSequence = service.scheduler.lastSequence
            try store.commit(batch)
        }
        #expect(try Self.reopen(directory, historySize: 10).history.map(\.record.id) == [1])
    }

    static func reopen(_ directory: String, historySize: Int) throws -> ToastStore.Loaded {
        // The first store must be gone (its lock released) before this runs.
        try ToastStore.open(directory: directory, historySize: historySize).1
    }

    /// A checkpoint that copied every page starts the WAL over itself, so
    /// that the sync of the new WAL header is the checkpoint's (on the commit
    /// thread), not the next step's (maybe on the event loop). The WAL
    /// header's checkpoint sequence number (bytes 12...15) counts restarts.
    @Test func aCompleteCheckpointStartsTheWALOverItself() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, batches) = Self.session()
        let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
        func restarts() throws -> UInt32 { try store.walRestartCount() }
        for batch in batches { try store.commit(batch) }
        let before = try restarts()
        try store.checkpointWAL()
        #expect(try restarts() == before + 1, "started over by the checkpoint, not left to the next commit")
        try store.commit(batches[0])
        #expect(try restarts() == before + 1, "the next commit appends")
        try store.checkpointWAL()
        #expect(try restarts() == before + 2)
        // What was committed is all still there.
        let rows = try store.storedRows()
        #expect(!rows.isEmpty)
    }

    @Test func aSecondStoreOnTheSameDirectoryIsRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, _) = try ToastStore.open(directory: directory, historySize: 10)
        #expect {
            _ = try ToastStore.open(directory: directory, historySize: 10)
        } throws: { error in
            if case ToastStore.Failure.locked = error { return true }
            return false
        }
        _ = first
    }

    @Test func aCorruptFileIsMovedAsideAndAFreshOneStarted() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(filePath: directory + "/" + ToastStore.fileName))
        let (_, loaded) = try ToastStore.open(directory: directory, historySize: 10, now: 1_700_000_000)
        #expect(loaded.state.records.isEmpty)
        #expect(loaded.notes.count == 1)
        #expect(loaded.notes.first?.contains("corrupt") == true)
        let aside = directory + "/" + ToastStore.fileName + ".corrupt-1700000000"
        #expect(try Data(contentsOf: URL(filePath: aside)) == garbage)
    }

    @Test func theStateDirectoryIsCreatedPrivate() throws {
        let parent = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/a/b/toastd"
        _ = try ToastStore.open(directory: directory, historySize: 10)
        var info = stat()
        #expect(stat(directory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test func theDefaultLocationFollowsSystemdThenXDG() {
        #expect(StateLocation.resolve(environment: ["STATE_DIRECTORY": "/s/toastd", "XDG_STATE_HOME": "/x"]) == "/s/toastd")
        #expect(StateLocation.resolve(environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"]) == "/x/toastd")
        #expect(StateLocation.resolve(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]) == "/h/.local/state/toastd")
    }

    /// A database written by the first schema (Fixtures/v1/, committed
    /// when schema v1 shipped) must open in every later version.
    @Test func aDatabaseOfTheFirstSchemaOpens() throws {
        let fixture = try #require(Bundle.module.url(forResource: "v1", withExtension: nil, subdirectory: "Fixtures"))
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: directory)
        let (_, loaded) = try ToastStore.open(directory: directory, historySize: 100)
        let (service, _) = Self.session()
        #expect(Self.sorted(loaded.state.records) == Self.sorted(service.scheduler.state.records))
        #expect(loaded.instance == "0123456789abcdef")
        // The v1 file was written before levels: its `paused` flag reads as the default level.
        #expect(loaded.state.pausedLevel == PauseLevels().defaultLevel)
        #expect(loaded.history.map(\.record.id) == [2])
    }

    /// Rows are written through SQLite's C API (`SQLite.swift`): they
    /// must be exactly what the fixture of the current row form wrote
    /// (Fixtures/v4-packed-history: live toasts and history entries as
    /// `StoredToast`'s bytes), every column of every toast and history
    /// row, byte for byte. The rows of the forms before it migrate to those
    /// same bytes: Fixtures/v3-packed (history entries as JSON) and
    /// Fixtures/v1-short-bodies (schema v1, bodies without their
    /// defaults); the first version's full form (Fixtures/v1) reads back as
    /// the same records (`aDatabaseOfTheFirstSchemaOpens`).
    @Test(arguments: ["v4-packed-history", "v3-packed", "v1-short-bodies"])
    func rowsAreWrittenAsTheFixtureWroteThem(fixtureName: String) throws {
        let fixture = try #require(Bundle.module.url(forResource: fixtureName, withExtension: nil, subdirectory: "Fixtures"))
        let copy = try Self.temporaryDirectory()
        let fresh = try Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: copy)
            try? FileManager.default.removeItem(atPath: fresh)
        }
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: copy)
        let (old, _) = try ToastStore.open(directory: copy, historySize: 100)
        let (new, _) = try ToastStore.open(directory: fresh, historySize: 100)
        for batch in Self.session().1 { try new.commit(batch) }
        let written = try new.storedRows()
        #expect(written.count == 5)  // four live toasts, one ended
        #expect(written == (try old.storedRows()))
    }

    /// A file of an older schema is migrated, and the tables the migrations
    /// rewrote leave no free pages behind: the file is vacuumed once.
    @Test(arguments: ["v1", "v1-short-bodies", "v3-packed"])
    func aMigratedFileKeepsNoFreePages(fixtureName: String) throws {
        let fixture = try #require(Bundle.module.url(forResource: fixtureName, withExtension: nil, subdirectory: "Fixtures"))
        let copy = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: copy)
        let database = try ToastStore.openMigrated(copy + "/toastd.sqlite")
        #expect(try ToastStore.freePages(database) == 0)
        let migrations = try database.statement("SELECT count(*) FROM grdb_migrations").first { $0.integer(0) }.flatMap { $0 }
        #expect(migrations == Int64(ToastStore.migrations.count))
    }

    /// Ways a stored toast's bytes can be damaged: in the header the
    /// store reads first, or in the toast, which a live toast has checked
    /// only as the restore unpacks it.
    enum StoredDamage: CaseIterable, CustomTestStringConvertible {
        case header, truncated, notUTF8, invalidToast

        var testDescription: String { "\(self)" }

        /// The damaged bytes for toast `id`.
        func bytes(id: ToastID) -> [UInt8] {
            func stored(_ message: String) -> [UInt8] {
                let record = ToastRecord(
                    id: id, toast: Toast(message: message), state: .queued, repeatCount: 1, createdAt: 0, presentedAt: nil,
                    expiresAt: nil, placement: 1
                )
                return StoredToast.withBytes(of: record) { Array($0) }
            }
            switch self {
            case .header: return [StoredToast.format, 0xFF]
            case .truncated: return stored("cut short").dropLast()
            case .notUTF8:
                var bytes = stored("QQQQ")
                let at = bytes.firstRange(of: Array("QQQQ".utf8))!.lowerBound
                bytes[at] = 0xC3  // then "(": not a UTF-8 sequence
                bytes[at + 1] = UInt8(ascii: "(")
                return bytes
            case .invalidToast: return stored(String(repeating: "x", count: ToastLimits.messageBytes + 1))
            }
        }
    }

    /// A stored toast, live or in the history, is read as strictly as a
    /// request (`StoredToast`): one whose bytes are damaged makes the file
    /// corrupt, which is moved aside. (Toast 2 is the session's one ended
    /// toast; 3 is live.)
    @Test(arguments: [(3, false), (2, true)], StoredDamage.allCases)
    func aDamagedStoredToastIsACorruptFile(toast: (id: ToastID, inHistory: Bool), damage: StoredDamage) throws {
        let (id, inHistory) = toast
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
            for batch in Self.session().1 { try store.commit(batch) }
            try store.overwriteStoredToast(id: id, inHistory: inHistory, with: damage.bytes(id: id))
        }
        let (reopened, loaded) = try ToastStore.open(directory: directory, historySize: 100)
        #expect(loaded.state.recordCount == 0)
        #expect(loaded.history.isEmpty)
        #expect(loaded.notes.count == 1)
        #expect(loaded.notes.first?.contains("corrupt") == true)
        #expect(loaded.notes.first?.contains("the toast \(id)") == true)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(ToastStore.fileName + ".corrupt-") }
        #expect(!aside.isEmpty)
        // The store that found the damage is gone, and the directory is still
        // locked for the one that replaced it: a second toastd is kept off.
        #expect {
            _ = try ToastStore.open(directory: directory, historySize: 100)
        } throws: { error in
            if case ToastStore.Failure.locked? = error as? ToastStore.Failure { return true }
            return false
        }
        withExtendedLifetime(reopened) {}
    }

    /// Writes a fixture (run once, by hand, when a schema or the row form
    /// ships; then delete the lock and journal files beside it):
    /// TOASTD_WRITE_STORE_FIXTURE=/path/to/Tests/ToastStoreTests/Fixtures/NAME swift test --filter writeTheFixture
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TOASTD_WRITE_STORE_FIXTURE"] != nil))
    func writeTheFixture() throws {
        let directory = ProcessInfo.processInfo.environment["TOASTD_WRITE_STORE_FIXTURE"]!
        try? FileManager.default.removeItem(atPath: directory)
        let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
        for batch in Self.session().1 { try store.commit(batch) }
        try store.setInstanceForFixture("0123456789abcdef")
        try store.checkpoint()
    }
}
