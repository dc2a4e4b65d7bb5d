// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
// The SQLite GRDB links, for the C API on the statements GRDB prepared (`Statement.run`).
import GRDBSQLite
import Synchronization
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// toastd's durable state: the live toasts, the counters that keep ids and
/// sequence numbers from ever repeating, the paused state, the sources
/// bound to connections, and the history of ended toasts, in SQLite.
///
/// - WAL mode with `synchronous = NORMAL`: a committed transaction survives
///   the process being killed at any instant, though not a power cut.
/// - One transaction per `Batch` (group commit): the daemon gathers what a
///   read burst or a timer tick changed and commits it at once, off its
///   event loop, before any reply to it is written.
/// - Schema changes go through `ToastStore.migrator`, so that a database
///   written by one version opens in the next.
/// - A lock file (`flock`) keeps a second toastd off the same directory.
///
/// Used from one thread at a time (the daemon's persistence thread).
public final class ToastStore: @unchecked Sendable {
    public static let fileName = "toastd.sqlite"

    public enum Failure: Error, CustomStringConvertible {
        /// Another toastd holds the directory.
        case locked(String)
        /// The directory or the database cannot be used; toastd serves from memory.
        case unavailable(String)

        public var description: String {
            switch self {
            case .locked(let directory):
                "another toastd is running on the state directory \(directory) (it holds \(directory)/toastd.lock); "
                    + "stop it, or give this one another --state-dir"
            case .unavailable(let reason): reason
            }
        }
    }

    /// What a start finds.
    public struct Loaded: Sendable {
        public var state: SchedulerStateMachine.State
        public var instance: String
        /// Oldest first: the newest `historySize` and up to
        /// `ToastHistory.slack` older ones kept behind them.
        public var history: [ToastHistory.Entry]
        /// Sources that were bound to connections: those connections are gone.
        public var boundSources: [String]
        /// What happened on the way (a corrupt file moved aside), for the log.
        public var notes: [String]
    }

    public let path: String
    private let database: DatabaseQueue
    private let historySize: Int
    private let lock: Int32
    /// Where small steps are made durable first (`StepJournal`): appended
    /// on the event loop, applied to the database by `commit`.
    public let journal: StepJournal

    private init(path: String, database: DatabaseQueue, historySize: Int, lock: Int32, journal: StepJournal) {
        self.path = path
        self.database = database
        self.historySize = historySize
        self.lock = lock
        self.journal = journal
    }

    deinit { close(lock) }

    /// Opens (or creates) the state in `directory`, created 0700 if missing.
    /// The directory and every file in it must pass `StateDirectory`'s
    /// checks: a directory another user can write to, or a planted file,
    /// makes the store unavailable (toastd serves from memory and says why).
    public static func open(directory: String, historySize: Int, now: Date = Date()) throws(Failure) -> (ToastStore, Loaded) {
        let lock: Int32
        do {
            try StateDirectory.prepare(directory)
            lock = try StateDirectory.openFile(directory + "/toastd.lock", flags: O_RDWR | O_CREAT)
        } catch {
            throw .unavailable("\(error)")
        }
        if flock(lock, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            close(lock)
            if reason == EWOULDBLOCK { throw .locked(directory) }
            throw .unavailable("cannot lock \(directory)/toastd.lock: \(String(cString: strerror(reason)))")
        }
        let path = directory + "/" + fileName
        var notes: [String] = []
        do {
            let database = try openMigrated(path)
            let store = try opened(database, path: path, directory: directory, historySize: historySize, lock: lock, notes: &notes)
            return (store, try store.load(notes: notes))
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode) {
            let aside = path + ".corrupt-\(Int(now.timeIntervalSince1970))"
            for suffix in ["", "-wal", "-shm"] { rename(path + suffix, aside + suffix) }
            // The journal's records are changes to that database, not to a fresh one.
            for name in StepJournal.fileNames {
                rename(directory + "/" + name, aside + "." + name.split(separator: ".").last!)
            }
            notes.append("the database was corrupt (\(error.message ?? "\(error.resultCode)")); it was moved to \(aside) and a fresh one started")
            do {
                let database = try openMigrated(path)
                let store = try opened(database, path: path, directory: directory, historySize: historySize, lock: lock, notes: &notes)
                return (store, try store.load(notes: notes))
            } catch {
                close(lock)
                throw .unavailable("cannot open \(path): \(error)")
            }
        } catch {
            close(lock)
            throw .unavailable("cannot open \(path): \(error)")
        }
    }

    /// The store over an opened database, once the journal's records
    /// newer than the database are applied to it.
    private static func opened(
        _ database: DatabaseQueue, path: String, directory: String, historySize: Int, lock: Int32, notes: inout [String]
    ) throws -> ToastStore {
        let (applied, storedKey) = try database.read { db in
            (
                try Self.meta(db, "journalApplied", in: 0...maxCounter) ?? 0,
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'journalKey'")
            )
        }
        // The key that signs the journal's records lives in the 0600
        // database; a database without one was written before keys, and
        // gets one now (its unkeyed records are read this once).
        let key: SipHash.Key
        if let storedKey {
            guard let stored = SipHash.Key(hex: storedKey) else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the journal key in meta is not 32 hex digits")
            }
            key = stored
        } else {
            key = .random()
            try database.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('journalKey', ?)", arguments: [key.hex])
            }
        }
        let journal = try StepJournal(directory: directory, lastNumber: applied, key: key, readsLegacyRecords: storedKey == nil)
        let store = ToastStore(path: path, database: database, historySize: historySize, lock: lock, journal: journal)
        notes += try store.applyJournal(after: applied)
        return store
    }

    static func openMigrated(_ path: String) throws -> DatabaseQueue {
        // SQLite opens these by name: each must be this user's own file, not
        // a symlink or another user's (the directory is trusted by now, so
        // nothing can be put in their place after this check).
        for suffix in ["", "-wal", "-shm"] { try StateDirectory.checkExistingFile(path + suffix) }
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        configuration.prepareDatabase { db in
            // Only this process ever opens the file (the lock file sees to
            // that), so SQLite need not lock it per transaction nor share its
            // WAL index through -shm: measured, that was six fcntl calls per
            // commit. It must be set before WAL is entered.
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            // WAL survives a killed process; synchronous=NORMAL skips the
            // fsync per commit that only a power cut would need.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // No checkpoint inside a commit: a commit may run on toastd's
            // event loop, and a checkpoint syncs the file. `checkpointWAL`
            // runs them off the loop instead (StatePersistence).
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        try migrator.migrate(database)
        // A corrupt page may only show when it is read.
        try database.read { db in
            let check = try String.fetchOne(db, sql: "PRAGMA quick_check")
            if check != "ok" { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: check) }
        }
        return database
    }

    /// Every schema toastd ever had, in order. Never edit a migration that
    /// has shipped: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value NOT NULL);
                    CREATE TABLE toast (id INTEGER PRIMARY KEY NOT NULL, body TEXT NOT NULL);
                    CREATE TABLE history (
                        seq INTEGER PRIMARY KEY NOT NULL, id INTEGER NOT NULL, ended_at INTEGER NOT NULL,
                        shown INTEGER NOT NULL, reason TEXT NOT NULL, body TEXT NOT NULL);
                    CREATE INDEX history_by_id ON history(id);
                    CREATE TABLE bound_source (source TEXT PRIMARY KEY NOT NULL);
                    """
            )
        }
        // meta's TEXT key was a separate index b-tree: every commit wrote two
        // pages for two counters. WITHOUT ROWID keeps them in one.
        migrator.registerMigration("v2: meta without rowid") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta_v2 (key TEXT PRIMARY KEY NOT NULL, value NOT NULL) WITHOUT ROWID;
                    INSERT INTO meta_v2 (key, value) SELECT key, value FROM meta;
                    DROP TABLE meta;
                    ALTER TABLE meta_v2 RENAME TO meta;
                    """
            )
        }
        // Live toasts as `StoredToast`'s bytes rather than JSON: reading
        // 100,000 of them through the JSON parser was 42% of a restart
        // (docs/BENCHMARKS.md, "At rest"). History stays JSON: it is read
        // a thousand rows at a time, and `history` replies with it.
        migrator.registerMigration("v3: live toasts packed") { db in
            try db.execute(sql: "CREATE TABLE toast_v3 (id INTEGER PRIMARY KEY NOT NULL, packed BLOB NOT NULL)")
            let insert = try db.makeStatement(sql: "INSERT INTO toast_v3(id, packed) VALUES (?, ?)")
            for body in try String.fetchAll(db, sql: "SELECT body FROM toast ORDER BY id") {
                let record = try decodeRecord(body)
                try insert.run(db) { sqlite3_bind_int64($0, 1, Int64(record.id)) | bindPacked(record, $0, 2) }
            }
            try db.execute(sql: "DROP TABLE toast; ALTER TABLE toast_v3 RENAME TO toast")
        }
        return migrator
    }

    // MARK: - Loading

    private func load(notes: [String]) throws -> Loaded {
        try database.write { db in
            var meta: [String: DatabaseValue] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM meta") { meta[row["key"]] = row["value"] }
            var instance = meta["instance"].flatMap { String.fromDatabaseValue($0) } ?? ""
            if instance.isEmpty {
                instance = ProtocolInfo.newInstance()
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('instance', ?)", arguments: [instance])
            }
            let records = try Self.liveToasts(db)
            let history = try Row.fetchAll(
                db, sql: "SELECT seq, ended_at, shown, reason, body FROM history ORDER BY seq DESC LIMIT ?",
                arguments: [historySize + ToastHistory.slack(capacity: historySize)]
            ).reversed().map { row in
                ToastHistory.Entry(
                    record: try Self.decodeRecord(row["body"]), shown: row["shown"], reason: row["reason"],
                    endedAt: row["ended_at"], seq: row["seq"]
                )
            }
            // The scheduler finds each live toast's source's newest among
            // them; ended toasts are only here.
            var newest: [String: ToastID] = [:]
            for entry in history {
                let source = entry.record.toast.source ?? SchedulerStateMachine.anonymousSource
                newest[source] = max(newest[source] ?? 0, entry.record.id)
            }
            let state = SchedulerStateMachine.State(
                packedRecords: records,
                // Before levels, `paused` was a flag: paused meant the default level.
                pausedLevel: try Self.meta(db, "pausedLevel", in: 0...Self.maxCounter).map(Int.init)
                    ?? (meta["paused"].flatMap { Bool.fromDatabaseValue($0) } == true ? PauseLevels().defaultLevel : 0),
                modes: meta["modes"].flatMap { String.fromDatabaseValue($0) }.map(Self.decodeModes) ?? [],
                nextID: try Self.meta(db, "nextID", in: 1...Self.maxCounter + 1) ?? 1,
                lastSequence: try Self.meta(db, "lastSequence", in: 0...Self.maxCounter) ?? 0,
                newestBySource: newest
            )
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM history") ?? 0
            historyRows.withLock { $0 = rows }
            let bound = try String.fetchAll(db, sql: "SELECT source FROM bound_source ORDER BY source")
            return Loaded(state: state, instance: instance, history: history, boundSources: bound, notes: notes)
        }
    }

    /// Every live toast, in the order of their ids, read through SQLite's
    /// C API straight from the row's bytes (GRDB's `fetchAll` made an
    /// array of 100,000 copies first), checked, and kept packed.
    private static func liveToasts(_ db: Database) throws -> [PackedRecord] {
        let prepared = try db.makeStatement(sql: "SELECT id, packed FROM toast ORDER BY id")
        let statement = prepared.sqliteStatement
        // GRDB finalizes the statement when `prepared` goes.
        defer { withExtendedLifetime(prepared) { _ = sqlite3_reset(statement) } }
        var records: [PackedRecord] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let id = sqlite3_column_int64(statement, 0)
                guard id > 0, sqlite3_column_type(statement, 1) == SQLITE_BLOB else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a stored toast has id \(id) or bytes that are not a blob")
                }
                let bytes = UnsafeBufferPointer(
                    start: sqlite3_column_blob(statement, 1)?.assumingMemoryBound(to: UInt8.self), count: Int(sqlite3_column_bytes(statement, 1))
                )
                do {
                    records.append(try StoredToast.packed(id: ToastID(id), from: bytes))
                } catch {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "\(error)")
                }
            case SQLITE_DONE:
                return records
            case let code:
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
        }
    }

    // MARK: - Committing

    /// Makes a small step durable in the journal (on the event loop):
    /// the rows and counters a commit of it would write. `commit` applies
    /// it to the database later, in a batch that absorbed it.
    public func journal(_ batch: Batch) throws(StepJournal.Failure) {
        let rows = batch.rows
        let counters = batch.counters
        try journal.append { JournalRecord.write(rows, counters, into: &$0) }
    }

    /// Applies the journal's intact records newer than `applied`, in
    /// order, in one transaction, and empties the journal. Notes for the
    /// log: how many were applied, and a torn record left behind.
    private func applyJournal(after applied: UInt64) throws -> [String] {
        let (records, torn) = journal.records()
        var notes: [String] = []
        if torn { notes.append("the journal ended in an incomplete record (cut short by a crash or a full disk); it was left out") }
        var newer: [(rows: Batch.Rows, counters: Counters)] = []
        for record in records where record.number > applied {
            do {
                var (rows, counters) = try JournalRecord.read(record.payload)
                counters.journaled = record.number
                try Self.validate(counters, record: record.number)
                newer.append((rows, counters))
            } catch let damaged as Damaged {
                throw damaged
            } catch {
                notes.append("journal record \(record.number) could not be read (\(error)); it and the ones after it were left out")
                break
            }
        }
        if let newest = newer.last {
            var written = writtenCounters.withLock { $0 }
            var rows = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM history") ?? 0 }
            try database.writeWithoutTransaction { db in
                try Self.transaction(db) {
                    for record in newer {
                        try write(record.rows, counters: record.counters, over: written, historyRows: &rows, db)
                        written = record.counters
                    }
                }
            }
            writtenCounters.withLock { $0 = written }
            journal.lastNumber = newest.counters.journaled
            notes.append("applied \(newer.count) journaled step\(newer.count == 1 ? "" : "s") the database did not hold yet")
        }
        for index in StepJournal.fileNames.indices { try journal.empty(index) }
        return notes
    }

    /// Commits one batch in one transaction.
    public func commit(_ batch: Batch) throws {
        let counters = batch.counters
        let written = writtenCounters.withLock { $0 }
        var rows = historyRows.withLock { $0 }
        let folded = batch.rows
        try database.writeWithoutTransaction { db in
            try Self.transaction(db) { try write(folded, counters: counters, over: written, historyRows: &rows, db) }
        }
        writtenCounters.withLock { $0 = counters }
        historyRows.withLock { $0 = rows }
    }

    /// Everything a daemon holds, for `replaceAll`.
    public struct FullState: Sendable {
        public var records: [ToastRecord]
        public var history: [ToastHistory.Entry]
        public var boundSources: [String]
        public var nextID: ToastID
        public var lastSequence: UInt64
        public var pausedLevel: Int
        public var modes: [String]

        public init(
            records: [ToastRecord], history: [ToastHistory.Entry], boundSources: [String], nextID: ToastID, lastSequence: UInt64,
            pausedLevel: Int, modes: [String]
        ) {
            self.records = records
            self.history = history
            self.boundSources = boundSources
            self.nextID = nextID
            self.lastSequence = lastSequence
            self.pausedLevel = pausedLevel
            self.modes = modes
        }
    }

    /// Makes the file hold exactly `state`, in one transaction, and empties
    /// the journal: how a daemon whose store failed (a full disk) puts
    /// everything it served from memory back once the store works again.
    public func replaceAll(_ state: FullState) throws {
        var rows = Batch.Rows()
        for record in state.records { rows.upserts[record.id] = record }
        rows.ended = state.history
        for source in state.boundSources { rows.bound[source] = true }
        let counters = Counters(
            nextID: state.nextID, lastSequence: state.lastSequence, pausedLevel: state.pausedLevel, modes: state.modes,
            journaled: journal.lastNumber
        )
        var historyRows = 0
        try database.writeWithoutTransaction { db in
            try Self.transaction(db) {
                try db.execute(sql: "DELETE FROM toast; DELETE FROM history; DELETE FROM bound_source")
                try write(rows, counters: counters, over: nil, historyRows: &historyRows, db)
            }
        }
        writtenCounters.withLock { $0 = counters }
        self.historyRows.withLock { $0 = historyRows }
        for index in StepJournal.fileNames.indices { try journal.empty(index) }
    }

    /// The counters the file holds since the last commit (nil before the
    /// first): a commit writes only those that changed, usually just the
    /// last sequence number.
    private let writtenCounters = Mutex<Counters?>(nil)

    /// The rows of `history` since the last commit (counted at load). The
    /// file is trimmed as `ToastHistory` trims itself: once it holds more
    /// than the size and its slack, down to the size. Trimming on every
    /// commit that ended a toast walked a thousand rows each time (about
    /// 30 µs), and kept fewer than the daemon showed after a `restore`.
    private let historyRows = Mutex(0)

    private func write(_ batch: Batch.Rows, counters: Counters, over written: Counters?, historyRows rows: inout Int, _ db: Database) throws {
        // The rows of toasts and history go through SQLite's C API: binding
        // through GRDB's `StatementArguments` cost more than SQLite's own
        // work on the row (docs/BENCHMARKS.md, section 2, "Both threads, then the rules").
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO toast(id, packed) VALUES (?, ?)")
        for record in batch.upserts.values {
            try upsert.run(db) { statement in
                sqlite3_bind_int64(statement, 1, Int64(record.id)) | Self.bindPacked(record, statement, 2)
            }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM toast WHERE id = ?")
        for id in batch.deletes { try delete.run(db) { sqlite3_bind_int64($0, 1, Int64(id)) } }
        if batch.historyCleared {
            try db.execute(sql: "DELETE FROM history")
            rows = 0
        }
        let removeEntry = try db.cachedStatement(sql: "DELETE FROM history WHERE id = ?")
        for id in batch.historyRemovals {
            try removeEntry.run(db) { sqlite3_bind_int64($0, 1, Int64(id)) }
            rows -= db.changesCount
        }
        if !batch.ended.isEmpty && historySize > 0 {
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO history(seq, id, ended_at, shown, reason, body) VALUES (?, ?, ?, ?, ?, ?)"
            )
            for entry in batch.ended {
                try insert.run(db) { statement in
                    sqlite3_bind_int64(statement, 1, Int64(entry.seq))
                        | sqlite3_bind_int64(statement, 2, Int64(entry.record.id))
                        | sqlite3_bind_int64(statement, 3, entry.endedAt)
                        | sqlite3_bind_int64(statement, 4, entry.shown ? 1 : 0)
                        | Self.bindText(entry.reason, statement, 5)
                        | Self.bindBody(of: entry.record, statement, 6)
                }
                rows += db.changesCount
            }
            if rows > historySize + ToastHistory.slack(capacity: historySize) {
                try db.cachedStatement(
                    sql: "DELETE FROM history WHERE seq <= (SELECT seq FROM history ORDER BY seq DESC LIMIT 1 OFFSET ?)"
                ).execute(arguments: [historySize])
                rows -= db.changesCount
            }
        }
        for (source, bound) in batch.bound {
            try db.execute(
                sql: bound ? "INSERT OR IGNORE INTO bound_source(source) VALUES (?)" : "DELETE FROM bound_source WHERE source = ?",
                arguments: [source]
            )
        }
        let meta = try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
        func set(_ key: String, _ value: Int64) throws {
            try meta.run(db) { Self.bindText(key, $0, 1) | sqlite3_bind_int64($0, 2, value) }
        }
        if written?.nextID != counters.nextID { try set("nextID", Int64(counters.nextID)) }
        if written?.lastSequence != counters.lastSequence { try set("lastSequence", Int64(counters.lastSequence)) }
        if written?.pausedLevel != counters.pausedLevel { try set("pausedLevel", Int64(counters.pausedLevel)) }
        if written?.modes != counters.modes {
            try meta.run(db) { Self.bindText("modes", $0, 1) | Self.bindText(counters.modes.joined(separator: "\n"), $0, 2) }
        }
        if counters.journaled > (written?.journaled ?? 0) { try set("journalApplied", Int64(counters.journaled)) }
    }

    /// Modes are names without control characters: one a line.
    static func decodeModes(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    /// Copies the WAL's pages into the database file so the WAL can start
    /// over (a passive checkpoint: it waits for nothing). Run off the event
    /// loop (StatePersistence).
    ///
    /// Once every page is copied, the next write starts the WAL over, and
    /// that write syncs the WAL's new header (SQLite does, with
    /// synchronous=NORMAL). Left to the next step, that sync ran on the
    /// event loop, at the first toast after a quiet moment; so a write here
    /// starts it over: a count of them in `meta` (a write must change its
    /// row: SQLite writes nothing for a row that stays byte for byte the
    /// same).
    public func checkpointWAL() throws {
        try database.writeWithoutTransaction { db in
            guard let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") else { return }
            let (busy, frames, copied): (Int, Int, Int) = (row[0], row[1], row[2])
            guard busy == 0, frames > 0, copied == frames else { return }
            try Self.transaction(db) {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('walRestarts', coalesce((SELECT value FROM meta WHERE key = 'walRestarts'), 0) + 1)"
                )
            }
        }
    }

    /// `body` in one write transaction, rolled back if it throws. BEGIN and
    /// COMMIT are cached statements: GRDB's `write` parses both anew each
    /// time, a tenth of a small step's time on the event loop. They run
    /// through the C API, like the rows and the counters: GRDB's `execute`
    /// (its arguments, its statement observation) cost a lone add's commit
    /// more than SQLite's own work on it (docs/BENCHMARKS.md, section 3).
    private static func transaction(_ db: Database, _ body: () throws -> Void) throws {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").run(db) { _ in SQLITE_OK }
        do {
            try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").run(db) { _ in SQLITE_OK }
        } catch {
            try? db.rollback()
            throw error
        }
    }

    /// How many times the WAL has started over: its header's checkpoint
    /// sequence number (bytes 12...15, big-endian), for a test to see when
    /// that happened.
    func walRestartCount() throws -> UInt32 {
        guard let header = FileManager.default.contents(atPath: path + "-wal"), header.count >= 16 else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return header.dropFirst(12).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Folds the WAL into the database file (for a fixture that is one file).
    func checkpoint() throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Every toast row (its bytes in hex) and history row as text, columns joined, in order:
    /// for a test to compare what two versions wrote.
    func storedRows() throws -> [String] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT id || ' ' || hex(packed) FROM toast ORDER BY id")
                + String.fetchAll(
                    db, sql: "SELECT seq || ' ' || id || ' ' || ended_at || ' ' || shown || ' ' || reason || ' ' || body FROM history ORDER BY seq"
                )
        }
    }

    /// Puts `bytes` in place of a live toast's stored form (tests: a damaged row).
    func overwriteStoredToast(id: ToastID, with bytes: [UInt8]) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE toast SET packed = ? WHERE id = ?", arguments: [Data(bytes), Int64(id)])
        }
    }

    func setInstanceForFixture(_ instance: String) throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('instance', ?)", arguments: [instance])
        }
    }

    // MARK: - Records

    /// Binds a record as stored (the toast as the wire shows it, plus its
    /// place) straight from where it was written.
    private static func bindBody(of record: ToastRecord, _ statement: SQLiteStatement, _ index: Int32) -> Int32 {
        WireEncoder.withStoredRecord(record) { bytes in
            sqlite3_bind_text(statement, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }

    /// Binds a live toast as stored (`StoredToast`).
    private static func bindPacked(_ record: ToastRecord, _ statement: SQLiteStatement, _ index: Int32) -> Int32 {
        StoredToast.withBytes(of: record) { bytes in
            sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }

    private static func bindText(_ text: String, _ statement: SQLiteStatement, _ index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
    }

    /// SQLite copies what is bound with this before the call returns.
    private static let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func decodeRecord(_ body: String) throws -> ToastRecord {
        do {
            return try WireDecoder.decodeRecord(try JSONValue.parse(body))
        } catch {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a stored toast is not valid: \(error)")
        }
    }
}

extension Statement {
    /// Binds with `bind`, runs the statement to its end and resets it, all
    /// through SQLite's C API. Only for statements that return no rows,
    /// whose every parameter `bind` sets, and that GRDB itself never runs.
    /// `bind` returns its calls' result codes or-ed together (`SQLITE_OK`
    /// is 0): a failed bind would leave the last row's value in place.
    fileprivate func run(_ db: Database, _ bind: (SQLiteStatement) -> Int32) throws {
        let bound = bind(sqliteStatement)
        let code = bound == SQLITE_OK ? sqlite3_step(sqliteStatement) : sqlite3_errcode(db.sqliteConnection)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(sqliteStatement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        sqlite3_reset(sqliteStatement)
    }
}
