// SPDX-License-Identifier: Apache-2.0
import CSQLite
import Foundation
import Testing

@testable import ToastStore

/// The store's connection over SQLite's C API (`SQLite.swift`), on real files.
@Suite("SQLite connection")
struct SQLiteTests {
    static func scratch() throws -> String {
        var template = Array("/tmp/toastd-sqlite-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try SQLiteDatabase(path: directory + "/t.sqlite")
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.transaction {
                try db.statement("INSERT INTO t(id, name) VALUES (?, ?)").run { $0.bind(integer: 1, at: 1) }
                throw Stop()
            }
        }
        #expect(try db.statement("SELECT count(*) FROM t").first { $0.integer(0) } == 0)
        // And the connection is out of the transaction: another one starts.
        try db.transaction { try db.execute("INSERT INTO t(id, name) VALUES (2, 'two')") }
        #expect(try db.statement("SELECT name FROM t WHERE id = 2").first { $0.text(0) } == "two")
    }

    @Test func aFailedStatementSaysWhichCodeAndWhy() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try SQLiteDatabase(path: directory + "/t.sqlite")
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY NOT NULL)")
        let insert = try db.statement("INSERT INTO t(id) VALUES (?)")
        try insert.run { $0.bind(integer: 7, at: 1) }
        let failure = try #require(throws: SQLiteDatabase.Failure.self) { try insert.run { $0.bind(integer: 7, at: 1) } }
        #expect(failure.code == SQLITE_CONSTRAINT | 6 << 8)  // SQLITE_CONSTRAINT_PRIMARYKEY, a macro Swift does not import
        #expect(failure.primary == SQLITE_CONSTRAINT)
        #expect(failure.message.contains("UNIQUE"))
        // The statement was reset: it runs again with another value.
        try insert.run { $0.bind(integer: 8, at: 1) }
        #expect(throws: SQLiteDatabase.Failure.self) { try db.execute("SELEC nothing") }
        #expect(throws: SQLiteDatabase.Failure.self) { try db.prepare("SELECT * FROM missing") }
    }

    @Test func columnsReadOnlyAsTheirType() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try SQLiteDatabase(path: directory + "/t.sqlite")
        let row = try db.prepare("SELECT 5, 'five', x'00ff', NULL, CAST(x'80' AS TEXT)").first { row in
            (row.integer(0), row.text(0), row.text(1), row.integer(1), row.blob(2).map(Array.init), row.blob(1), row.describe(3), row.text(4), row.describe(2))
        }
        let (integer, integerAsText, text, textAsInteger, blob, textAsBlob, null, badUTF8, described) = try #require(row)
        #expect(integer == 5 && integerAsText == nil)
        #expect(text == "five" && textAsInteger == nil)
        #expect(blob == [0x00, 0xFF] && textAsBlob == nil)
        #expect(null == "NULL")
        #expect(badUTF8 == nil, "text that is not UTF-8 is not a String")
        #expect(described == "a blob of 2 bytes")
    }

    /// The store's files are opened by name after `StateDirectory` checked
    /// them; SQLite itself refuses a symbolic link in their place.
    @Test func aSymbolicLinkIsNotOpened() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/elsewhere.sqlite"
        _ = try SQLiteDatabase(path: target)
        #expect(symlink(target, directory + "/link.sqlite") == 0)
        let failure = try #require(throws: SQLiteDatabase.Failure.self) { try SQLiteDatabase(path: directory + "/link.sqlite") }
        #expect(failure.primary == SQLITE_CANTOPEN)
    }
}
