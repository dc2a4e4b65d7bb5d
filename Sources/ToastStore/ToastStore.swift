// SPDX-License-Identifier: Apache-2.0
import CSQLite
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
/// - Schema changes go through `ToastStore.migrations`, so that a database
///   written by one version opens in the next.
/// - A lock file (`flock`) keeps a second toastd off the same directory.
///
/// Used from one thread at a time (the daemon's persistence thread); the
/// connection is behind a lock all the same.
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
        /// The scheduler carrying on from the stored live toasts and
        /// counters, each toast checked as the restore unpacked it.
        public var scheduler: SchedulerStateMachine
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
    private let connection: SQLiteDatabase
    private let access = Mutex(())
    private let historySize: Int
    private let lock: DirectoryLock
    /// Where small steps are made durable first (`StepJournal`): appended
    /// on the event loop, applied to the database by `commit`.
    public let journal: StepJournal

    private init(path: String, database: SQLiteDatabase, historySize: Int, lock: DirectoryLock, journal: StepJournal) {
        self.path = path
        connection = database
        self.historySize = historySize
        self.lock = lock
        self.journal = journal
    }

    /// The state directory's lock file, held (`flock`) until the last store
    /// over it is gone. One owner: a store that fails as it opens (a corrupt
    /// file, moved aside and opened again) drops its reference, and the lock
    /// stays held for the next; it used to close the descriptor in its
    /// deinit, and `open` closed it again, or went on without the lock.
    private final class DirectoryLock: Sendable {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }

    /// `body` on the connection, under the lock.
    private func database<Result>(_ body: (SQLiteDatabase) throws -> Result) throws -> Result {
        try access.withLock { _ in try body(connection) }
    }

    /// Opens (or creates) the state in `directory`, created 0700 if missing.
    /// The directory and every file in it must pass `StateDirectory`'s
    /// checks: a directory another user can write to, or a planted file,
    /// makes the store unavailable (toastd serves from memory and says why).
    public static func open(directory: String, historySize: Int, now: Int = time(nil)) throws(Failure) -> (ToastStore, Loaded) {
        let lockFile: Int32
        do {
            try StateDirectory.prepare(directory)
            lockFile = try StateDirectory.openFile(directory + "/toastd.lock", flags: O_RDWR | O_CREAT)
        } catch {
            throw .unavailable("\(error)")
        }
        if flock(lockFile, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            close(lockFile)
            if reason == EWOULDBLOCK { throw .locked(directory) }
            throw .unavailable("cannot lock \(directory)/toastd.lock: \(String(cString: strerror(reason)))")
        }
        let lock = DirectoryLock(lockFile)
        let path = directory + "/" + fileName
        var notes: [String] = []
        do {
            let database = try openMigrated(path)
            let store = try opened(database, path: path, directory: directory, historySize: historySize, lock: lock, notes: &notes)
            return (store, try store.load(notes: notes))
        } catch let error as SQLiteDatabase.Failure where [SQLITE_CORRUPT, SQLITE_NOTADB].contains(error.primary) {
            let aside = path + ".corrupt-\(now)"
            for suffix in ["", "-wal", "-shm"] { rename(path + suffix, aside + suffix) }
            // The journal's records are changes to that database, not to a fresh one.
            for name in StepJournal.fileNames {
                rename(directory + "/" + name, aside + "." + name.split(separator: ".").last!)
            }
            notes.append("the database was corrupt (\(error.message)); it was moved to \(aside) and a fresh one started")
            do {
                let database = try openMigrated(path)
                let store = try opened(database, path: path, directory: directory, historySize: historySize, lock: lock, notes: &notes)
                return (store, try store.load(notes: notes))
            } catch {
                throw .unavailable("cannot open \(path): \(error)")
            }
        } catch {
            throw .unavailable("cannot open \(path): \(error)")
        }
    }

    /// The store over an opened database, once the journal's records
    /// newer than the database are applied to it.
    private static func opened(
        _ database: SQLiteDatabase, path: String, directory: String, historySize: Int, lock: DirectoryLock, notes: inout [String]
    ) throws -> ToastStore {
        let applied = try Self.meta(database, "journalApplied", in: 0...maxCounter) ?? 0
        let storedKey = try Self.metaText(database, "journalKey")
        // The key that signs the journal's records lives in the 0600
        // database; a database without one was written before keys, and
        // gets one now (its unkeyed records are read this once).
        let key: SipHash.Key
        if let storedKey {
            guard let stored = SipHash.Key(hex: storedKey) else {
                throw SQLiteDatabase.Failure.corrupt("the journal key in meta is not 32 hex digits")
            }
            key = stored
        } else {
            key = .random()
            try database.transaction { try Self.setMeta(database, "journalKey", .text(key.hex)) }
        }
        let journal = try StepJournal(directory: directory, lastNumber: applied, key: key, readsLegacyRecords: storedKey == nil)
        let store = ToastStore(path: path, database: database, historySize: historySize, lock: lock, journal: journal)
        notes += try store.applyJournal(after: applied)
        return store
    }

    static func openMigrated(_ path: String) throws -> SQLiteDatabase {
        // SQLite opens these by name: each must be this user's own file, not
        // a symlink or another user's (the directory is trusted by now, so
        // nothing can be put in their place after this check).
        for suffix in ["", "-wal", "-shm"] { try StateDirectory.checkExistingFile(path + suffix) }
        // No busy handler: only this process ever opens the file.
        let database = try SQLiteDatabase(path: path)
        // Only this process ever opens the file (the lock file sees to
        // that), so SQLite need not lock it per transaction nor share its
        // WAL index through -shm: measured, that was six fcntl calls per
        // commit. It must be set before WAL is entered.
        try database.execute("PRAGMA locking_mode = EXCLUSIVE")
        // WAL survives a killed process; synchronous=NORMAL skips the
        // fsync per commit that only a power cut would need.
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        // No checkpoint inside a commit: a commit may run on toastd's
        // event loop, and a checkpoint syncs the file. `checkpointWAL`
        // runs them off the loop instead (StatePersistence).
        try database.execute("PRAGMA wal_autocheckpoint = 0")
        try migrate(database)
        // A corrupt page may only show when it is read.
        let check = try database.prepare("PRAGMA quick_check").first { $0.text(0) }
        if check != "ok" { throw SQLiteDatabase.Failure.corrupt(check.flatMap { $0 } ?? "quick_check gave no answer") }
        return database
    }

    /// Every schema toastd ever had, in order, each applied once in a
    /// transaction of its own. Never edit a migration that has shipped:
    /// add a new one.
    static let migrations: [(identifier: String, migrate: @Sendable (SQLiteDatabase) throws -> Void)] = [
        (
            "v1",
            { db in
                try db.execute(
                    """
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
        ),
        // meta's TEXT key was a separate index b-tree: every commit wrote two
        // pages for two counters. WITHOUT ROWID keeps them in one.
        (
            "v2: meta without rowid",
            { db in
                try db.execute(
                    """
                    CREATE TABLE meta_v2 (key TEXT PRIMARY KEY NOT NULL, value NOT NULL) WITHOUT ROWID;
                    INSERT INTO meta_v2 (key, value) SELECT key, value FROM meta;
                    DROP TABLE meta;
                    ALTER TABLE meta_v2 RENAME TO meta;
                    """
                )
            }
        ),
        // Live toasts as `StoredToast`'s bytes rather than JSON: reading
        // 100,000 of them through the JSON parser was 42% of a restart
        // (docs/BENCHMARKS.md, "At rest").
        (
            "v3: live toasts packed",
            { db in
                try db.execute("CREATE TABLE toast_v3 (id INTEGER PRIMARY KEY NOT NULL, packed BLOB NOT NULL)")
                let insert = try db.prepare("INSERT INTO toast_v3(id, packed) VALUES (?, ?)")
                try db.prepare("SELECT body FROM toast ORDER BY id").rows { row in
                    let record = try decodeRecord(row.text(0) ?? "")
                    try insert.run { $0.bind(integer: Int64(record.id), at: 1) | bindPacked(record, $0, 2) }
                }
                try db.execute("DROP TABLE toast; ALTER TABLE toast_v3 RENAME TO toast")
            }
        ),
        // History entries as `StoredToast`'s bytes too: a full history
        // (1,000 entries, the default) read through the JSON parser took
        // 5 ms of every start, more than the rest of an empty start
        // together (docs/BENCHMARKS.md, "At rest").
        (
            "v4: history packed",
            { db in
                try db.execute(
                    """
                    CREATE TABLE history_v4 (
                        seq INTEGER PRIMARY KEY NOT NULL, id INTEGER NOT NULL, ended_at INTEGER NOT NULL,
                        shown INTEGER NOT NULL, reason TEXT NOT NULL, packed BLOB NOT NULL)
                    """
                )
                let insert = try db.prepare("INSERT INTO history_v4(seq, id, ended_at, shown, reason, packed) VALUES (?, ?, ?, ?, ?, ?)")
                try db.prepare("SELECT seq, ended_at, shown, reason, body FROM history ORDER BY seq").rows { row in
                    guard let seq = row.integer(0), let endedAt = row.integer(1), let shown = row.integer(2), let reason = row.text(3) else {
                        throw SQLiteDatabase.Failure.corrupt("a history row holds \((0..<4).map { row.describe($0) }.joined(separator: ", "))")
                    }
                    let record = try decodeRecord(row.text(4) ?? "")
                    try insert.run { statement in
                        statement.bind(integer: seq, at: 1) | statement.bind(integer: Int64(record.id), at: 2)
                            | statement.bind(integer: endedAt, at: 3) | statement.bind(integer: shown, at: 4)
                            | statement.bind(.text(reason), at: 5) | bindPacked(record, statement, 6)
                    }
                }
                try db.execute(
                    """
                    DROP TABLE history;
                    ALTER TABLE history_v4 RENAME TO history;
                    CREATE INDEX history_by_id ON history(id);
                    """
                )
            }
        ),
    ]

    /// Applies the migrations the file has not had. Which ones it has had
    /// is in `grdb_migrations`, the table of the library (GRDB) that earlier
    /// toastd versions migrated with: the same table, so that their files
    /// open here and this version's files in theirs.
    static func migrate(_ db: SQLiteDatabase) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        var applied: Set<String> = []
        try db.prepare("SELECT identifier FROM grdb_migrations").rows { row in
            if let identifier = row.text(0) { applied.insert(identifier) }
        }
        var migrated = false
        for (identifier, migration) in migrations where !applied.contains(identifier) {
            try db.transaction {
                try migration(db)
                let record = try db.prepare("INSERT INTO grdb_migrations(identifier) VALUES (?)")
                try record.bind(.text(identifier))
                try record.run()
            }
            migrated = true
        }
        // A migration that rewrites a table (v3, v4) leaves the old one's
        // pages free inside the file, as large as the table was: the file
        // is rewritten without them, once.
        if migrated, try freePages(db) > 0 { try db.execute("VACUUM") }
    }

    /// The pages of the file that hold nothing.
    static func freePages(_ db: SQLiteDatabase) throws -> Int64 {
        try db.statement("PRAGMA freelist_count").first { $0.integer(0) }.flatMap { $0 } ?? 0
    }

    // MARK: - Loading

    private func load(notes: [String]) throws -> Loaded {
        // The live toasts are restored as they are read, on a thread of
        // their own, and checked there as the restore unpacks them (not
        // once here and again there: that was a quarter of a restart's CPU
        // with 100,000 of them; docs/BENCHMARKS.md, "At rest"). A damaged
        // one makes the file corrupt, as a damaged row does.
        let restore = RestoreHandOff()
        let loaded = try database { db in
            try db.transaction {
                var instance = try Self.metaText(db, "instance") ?? ""
                if instance.isEmpty {
                    instance = ProtocolInfo.newInstance()
                    try Self.setMeta(db, "instance", .text(instance))
                }
                try Self.liveToasts(db, into: restore)
                let history = try Self.history(db, newest: historySize + ToastHistory.slack(capacity: historySize))
                // The scheduler finds each live toast's source's newest among
                // them; ended toasts are only here.
                var newest: [String: ToastID] = [:]
                for entry in history {
                    let source = entry.record.toast.source ?? SchedulerStateMachine.anonymousSource
                    newest[source] = max(newest[source] ?? 0, entry.record.id)
                }
                // Before levels, `paused` was a flag: paused meant the default level.
                let pausedFlag = try Self.meta(db, "paused", in: 0...1).map { $0 == 1 } ?? false
                let state = SchedulerStateMachine.State(
                    packedRecords: [],
                    pausedLevel: try Self.meta(db, "pausedLevel", in: 0...Self.maxCounter).map(Int.init)
                        ?? (pausedFlag ? PauseLevels().defaultLevel : 0),
                    modes: try Self.metaText(db, "modes").map(Self.decodeModes) ?? [],
                    nextID: try Self.meta(db, "nextID", in: 1...Self.maxCounter + 1) ?? 1,
                    lastSequence: try Self.meta(db, "lastSequence", in: 0...Self.maxCounter) ?? 0,
                    newestBySource: newest
                )
                let rows = try Self.historyRowCount(db)
                historyRows.withLock { $0 = rows }
                var bound: [String] = []
                try db.prepare("SELECT source FROM bound_source ORDER BY source").rows { row in
                    guard let source = row.text(0) else { throw SQLiteDatabase.Failure.corrupt("a bound source is \(row.describe(0))") }
                    bound.append(source)
                }
                return (state: state, instance: instance, history: history, boundSources: bound)
            }
        }
        let scheduler: SchedulerStateMachine
        do {
            let state = loaded.state
            scheduler = try restore.finish().finish(
                pausedLevel: state.pausedLevel, modes: state.modes, nextID: state.nextID, lastSequence: state.lastSequence,
                newestBySource: state.newestBySource
            )
        } catch {
            throw SQLiteDatabase.Failure.corrupt("\(error)")
        }
        return Loaded(scheduler: scheduler, instance: loaded.instance, history: loaded.history, boundSources: loaded.boundSources, notes: notes)
    }

    private static func historyRowCount(_ db: SQLiteDatabase) throws -> Int {
        Int(try db.statement("SELECT count(*) FROM history").first { $0.integer(0) }.flatMap { $0 } ?? 0)
    }

    /// The newest `count` history entries, oldest first, each record read
    /// from the row's bytes as strictly as a live toast's.
    private static func history(_ db: SQLiteDatabase, newest count: Int) throws -> [ToastHistory.Entry] {
        let query = try db.prepare("SELECT seq, id, ended_at, shown, reason, packed FROM history ORDER BY seq DESC LIMIT ?")
        try query.bind(.integer(Int64(count)))
        var entries: [ToastHistory.Entry] = []
        try query.rows { row in
            guard let seq = row.integer(0), seq >= 0, let id = row.integer(1), id > 0, let endedAt = row.integer(2),
                let shown = row.integer(3), let reason = row.text(4), let bytes = row.blob(5)
            else {
                throw SQLiteDatabase.Failure.corrupt("a history row holds \((0..<6).map { row.describe($0) }.joined(separator: ", "))")
            }
            let record: ToastRecord
            do {
                record = try StoredToast.record(id: ToastID(id), from: bytes)
            } catch {
                throw SQLiteDatabase.Failure.corrupt("history entry \(seq): \(error)")
            }
            entries.append(ToastHistory.Entry(record: record, shown: shown != 0, reason: reason, endedAt: endedAt, seq: UInt64(seq)))
        }
        return entries.reversed()
    }

    /// Every live toast, in the order of their ids, read straight from the
    /// row's bytes and kept packed, handed to `restore`; their format and
    /// id checked here, their toasts as the restore unpacks them (`load`).
    private static func liveToasts(_ db: SQLiteDatabase, into restore: RestoreHandOff) throws {
        try db.prepare("SELECT id, packed FROM toast ORDER BY id").rows { row in
            guard let id = row.integer(0), id > 0, let bytes = row.blob(1) else {
                throw SQLiteDatabase.Failure.corrupt("a stored toast has id \(row.describe(0)) and \(row.describe(1))")
            }
            do {
                restore.append(try StoredToast.row(id: ToastID(id), from: bytes))
            } catch {
                throw SQLiteDatabase.Failure.corrupt("\(error)")
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
            try database { db in
                var rows = try Self.historyRowCount(db)
                try db.transaction {
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
        try database { db in
            try db.transaction { try write(folded, counters: counters, over: written, historyRows: &rows, db) }
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
        for record in state.records { rows.upserts[record.id] = .record(record) }
        rows.ended = state.history
        for source in state.boundSources { rows.bound[source] = true }
        let counters = Counters(
            nextID: state.nextID, lastSequence: state.lastSequence, pausedLevel: state.pausedLevel, modes: state.modes,
            journaled: journal.lastNumber
        )
        var historyRows = 0
        try database { db in
            try db.transaction {
                try db.execute("DELETE FROM toast; DELETE FROM history; DELETE FROM bound_source")
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

    private func write(_ batch: Batch.Rows, counters: Counters, over written: Counters?, historyRows rows: inout Int, _ db: SQLiteDatabase) throws {
        // Rows are bound and stepped on statements prepared once: binding
        // through a library's arguments cost more than SQLite's own work on
        // the row (docs/BENCHMARKS.md, section 2, "Both threads, then the rules").
        let upsert = try db.statement("INSERT OR REPLACE INTO toast(id, packed) VALUES (?, ?)")
        for (id, row) in batch.upserts {
            try upsert.run { statement in
                statement.bind(integer: Int64(id), at: 1) | row.withStoredBytes { statement.bind(blob: $0, at: 2) }
            }
        }
        let delete = try db.statement("DELETE FROM toast WHERE id = ?")
        for id in batch.deletes { try delete.run { $0.bind(integer: Int64(id), at: 1) } }
        if batch.historyCleared {
            try db.execute("DELETE FROM history")
            rows = 0
        }
        let removeEntry = try db.statement("DELETE FROM history WHERE id = ?")
        for id in batch.historyRemovals {
            try removeEntry.run { $0.bind(integer: Int64(id), at: 1) }
            rows -= db.changes
        }
        if !batch.ended.isEmpty && historySize > 0 {
            let insert = try db.statement("INSERT OR REPLACE INTO history(seq, id, ended_at, shown, reason, packed) VALUES (?, ?, ?, ?, ?, ?)")
            for entry in batch.ended {
                try insert.run { statement in
                    statement.bind(integer: Int64(entry.seq), at: 1)
                        | statement.bind(integer: Int64(entry.record.id), at: 2)
                        | statement.bind(integer: entry.endedAt, at: 3)
                        | statement.bind(integer: entry.shown ? 1 : 0, at: 4)
                        | statement.bind(.text(entry.reason), at: 5)
                        | Self.bindPacked(entry.record, statement, 6)
                }
                rows += db.changes
            }
            if rows > historySize + ToastHistory.slack(capacity: historySize) {
                let trim = try db.statement("DELETE FROM history WHERE seq <= (SELECT seq FROM history ORDER BY seq DESC LIMIT 1 OFFSET ?)")
                try trim.run { $0.bind(integer: Int64(historySize), at: 1) }
                rows -= db.changes
            }
        }
        for (source, bound) in batch.bound {
            let statement = try db.statement(
                bound ? "INSERT OR IGNORE INTO bound_source(source) VALUES (?)" : "DELETE FROM bound_source WHERE source = ?"
            )
            try statement.run { $0.bind(.text(source), at: 1) }
        }
        if written?.nextID != counters.nextID { try Self.setMeta(db, "nextID", .integer(Int64(counters.nextID))) }
        if written?.lastSequence != counters.lastSequence { try Self.setMeta(db, "lastSequence", .integer(Int64(counters.lastSequence))) }
        if written?.pausedLevel != counters.pausedLevel { try Self.setMeta(db, "pausedLevel", .integer(Int64(counters.pausedLevel))) }
        if written?.modes != counters.modes { try Self.setMeta(db, "modes", .text(counters.modes.joined(separator: "\n"))) }
        if counters.journaled > (written?.journaled ?? 0) { try Self.setMeta(db, "journalApplied", .integer(Int64(counters.journaled))) }
    }

    /// Sets one row of `meta`.
    static func setMeta(_ db: SQLiteDatabase, _ key: String, _ value: SQLiteValue) throws {
        try db.statement("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").run { $0.bind(.text(key), at: 1) | $0.bind(value, at: 2) }
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
        try database { db in
            let result = try db.statement("PRAGMA wal_checkpoint(PASSIVE)").first { row in (row.integer(0), row.integer(1), row.integer(2)) }
            guard let (busy, frames, copied) = result, busy == 0, let frames, frames > 0, copied == frames else { return }
            try db.transaction {
                try db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('walRestarts', coalesce((SELECT value FROM meta WHERE key = 'walRestarts'), 0) + 1)"
                )
            }
        }
    }

    /// How many times the WAL has started over: its header's checkpoint
    /// sequence number (bytes 12...15, big-endian), for a test to see when
    /// that happened.
    func walRestartCount() throws -> UInt32 {
        let fd = Glibc.open(path + "-wal", O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        var header = [UInt8](repeating: 0, count: 16)
        guard fd >= 0, header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 16, 0) }) == 16 else {
            throw SQLiteDatabase.Failure.corrupt("no WAL header in \(path)-wal")
        }
        return header[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Folds the WAL into the database file (for a fixture that is one file).
    func checkpoint() throws {
        try database { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Every toast row (its bytes in hex) and history row as text, columns joined, in order:
    /// for a test to compare what two versions wrote.
    func storedRows() throws -> [String] {
        try database { db in
            var rows: [String] = []
            for sql in [
                "SELECT id || ' ' || hex(packed) FROM toast ORDER BY id",
                "SELECT seq || ' ' || id || ' ' || ended_at || ' ' || shown || ' ' || reason || ' ' || hex(packed) FROM history ORDER BY seq",
            ] {
                try db.prepare(sql).rows { row in rows.append(row.text(0) ?? "") }
            }
            return rows
        }
    }

    /// Puts `bytes` in place of a live toast's stored form, or a history
    /// entry's (tests: a damaged row).
    func overwriteStoredToast(id: ToastID, inHistory: Bool = false, with bytes: [UInt8]) throws {
        try database { db in
            try db.prepare("UPDATE \(inHistory ? "history" : "toast") SET packed = ? WHERE id = ?").run { statement in
                bytes.withUnsafeBufferPointer { statement.bind(blob: $0, at: 1) } | statement.bind(integer: Int64(id), at: 2)
            }
        }
    }

    func setInstanceForFixture(_ instance: String) throws {
        try database { db in try db.transaction { try Self.setMeta(db, "instance", .text(instance)) } }
    }

    // MARK: - Records

    /// Binds a live toast as stored (`StoredToast`).
    private static func bindPacked(_ record: ToastRecord, _ statement: SQLiteDatabase.Statement, _ index: Int32) -> Int32 {
        StoredToast.withBytes(of: record) { statement.bind(blob: $0, at: index) }
    }

    static func decodeRecord(_ body: String) throws -> ToastRecord {
        do {
            return try WireDecoder.decodeRecord(try JSONValue.parse(body))
        } catch {
            throw SQLiteDatabase.Failure.corrupt("a stored toast is not valid: \(error)")
        }
    }
}
