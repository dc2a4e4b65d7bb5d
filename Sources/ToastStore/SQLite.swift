// SPDX-License-Identifier: Apache-2.0
import CSQLite

/// A connection to one SQLite file, through SQLite's C API: what the store
/// needs and no more (statements prepared once and kept, values bound and
/// read by column, one error type with SQLite's result code).
///
/// toastd used GRDB, which brings the whole of Foundation (and its ICU
/// data) into the daemon: measured, it made every start 1.7 ms slower than
/// the same open and query through the C API, and toastd's binary twice
/// as large (README.md, "Dependencies"; docs/BENCHMARKS.md, "At rest").
/// The store had already moved every row it writes or reads in bulk onto
/// the C API for speed; this is the rest of it.
///
/// Not thread-safe: `ToastStore` holds it behind a lock.
final class SQLiteDatabase {
    /// An SQLite result code other than OK, ROW or DONE, with SQLite's message.
    struct Failure: Error, CustomStringConvertible {
        /// The extended result code.
        var code: Int32
        var message: String

        /// The primary result code (`SQLITE_CORRUPT` for `SQLITE_CORRUPT_INDEX`).
        var primary: Int32 { code & 0xFF }

        static func corrupt(_ message: String) -> Failure { Failure(code: SQLITE_CORRUPT, message: message) }

        var description: String { "SQLite error \(code): \(message)" }
    }

    private let handle: OpaquePointer
    private var cached: [String: Statement] = [:]

    /// Opens (or creates) the file at `path`, which must not be a symbolic link.
    init(path: String) throws(Failure) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw Failure(code: code, message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        for statement in cached.values { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// Runs `sql`, one statement or several separated by semicolons, none with parameters.
    func execute(_ sql: String) throws(Failure) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw Self.failure(code, handle) }
    }

    /// The statement for `sql`, prepared the first time and kept.
    func statement(_ sql: String) throws(Failure) -> Statement {
        if let statement = cached[sql] { return statement }
        let statement = try prepare(sql, kept: true)
        cached[sql] = statement
        return statement
    }

    /// A statement for `sql` prepared for one use: finalized when it goes.
    func prepare(_ sql: String, kept: Bool = false) throws(Failure) -> Statement {
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, kept ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &prepared, nil)
        guard code == SQLITE_OK, let prepared else { throw Self.failure(code, handle) }
        return Statement(prepared, kept: kept)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// `body` in one write transaction, rolled back if it throws.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try statement("BEGIN IMMEDIATE TRANSACTION").run()
        do {
            let result = try body()
            try statement("COMMIT TRANSACTION").run()
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? statement("ROLLBACK TRANSACTION").run() }
            throw error
        }
    }

    /// The failure `code` stands for, on the connection `connection`.
    fileprivate static func failure(_ code: Int32, _ connection: OpaquePointer?) -> Failure {
        guard let connection else { return Failure(code: code, message: String(cString: sqlite3_errstr(code))) }
        return Failure(code: code == SQLITE_ERROR ? sqlite3_extended_errcode(connection) : code, message: String(cString: sqlite3_errmsg(connection)))
    }

    /// One prepared statement. Parameters are numbered from 1, columns from 0.
    final class Statement {
        fileprivate let handle: OpaquePointer
        /// Kept by its database, which finalizes it before it closes;
        /// otherwise finalized when it goes.
        private let kept: Bool

        fileprivate init(_ handle: OpaquePointer, kept: Bool) {
            self.handle = handle
            self.kept = kept
        }

        fileprivate func finalize() { sqlite3_finalize(handle) }

        deinit { if !kept { sqlite3_finalize(handle) } }

        private func failure(_ code: Int32) -> Failure { SQLiteDatabase.failure(code, sqlite3_db_handle(handle)) }

        /// SQLite copies what is bound with this before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        /// Binds `values` in order, every parameter of the statement, for
        /// `rows` or `first` to read what it selects.
        func bind(_ values: SQLiteValue...) throws(Failure) {
            sqlite3_reset(handle)
            var code = SQLITE_OK
            for (index, value) in values.enumerated() { code |= bind(value, at: Int32(index + 1)) }
            guard code == SQLITE_OK else { throw failure(sqlite3_errcode(sqlite3_db_handle(handle))) }
        }

        /// The `bind` calls of `run` return SQLite's result code.
        func bind(_ value: SQLiteValue, at position: Int32) -> Int32 {
            switch value {
            case .integer(let integer): bind(integer: integer, at: position)
            case .text(var text): text.withUTF8 { bind(text: $0, at: position) }
            }
        }

        func bind(integer: Int64, at position: Int32) -> Int32 { sqlite3_bind_int64(handle, position, integer) }

        func bind(text bytes: UnsafeBufferPointer<UInt8>, at position: Int32) -> Int32 {
            sqlite3_bind_text(handle, position, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(bytes.count), Self.transient)
        }

        func bind(blob bytes: UnsafeBufferPointer<UInt8>, at position: Int32) -> Int32 {
            // A NULL pointer would bind NULL, not an empty blob.
            sqlite3_bind_blob(handle, position, bytes.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(bytes.count), Self.transient)
        }

        /// Binds with `bind` (its calls' result codes or-ed together:
        /// `SQLITE_OK` is 0), runs the statement to its end and resets it.
        /// For statements that return no rows; `bind` sets every parameter,
        /// or a failed bind would leave the last run's value in place.
        func run(_ bind: (Statement) -> Int32 = { _ in SQLITE_OK }) throws(Failure) {
            let bound = bind(self)
            let code = bound == SQLITE_OK ? sqlite3_step(handle) : sqlite3_errcode(sqlite3_db_handle(handle))
            guard code == SQLITE_DONE else {
                let failure = failure(code)
                sqlite3_reset(handle)
                throw failure
            }
            sqlite3_reset(handle)
        }

        /// Steps through the rows (after `bind`, if it has parameters),
        /// handing each to `row`, then resets.
        func rows(_ row: (Row) throws -> Void) throws {
            defer { sqlite3_reset(handle) }
            while true {
                switch sqlite3_step(handle) {
                case SQLITE_ROW: try row(Row(handle: handle))
                case SQLITE_DONE: return
                case let code: throw failure(code)
                }
            }
        }

        /// The first row's value by `read`, or nil when there is no row;
        /// the rest are not read.
        func first<Value>(_ read: (Row) throws -> Value) throws -> Value? {
            defer { sqlite3_reset(handle) }
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return try read(Row(handle: handle))
            case SQLITE_DONE: return nil
            case let code: throw failure(code)
            }
        }
    }

    /// The current row of a statement being stepped: read it before the next step.
    struct Row {
        fileprivate let handle: OpaquePointer

        /// The column as an integer: nil when it is of another type.
        func integer(_ column: Int32) -> Int64? {
            sqlite3_column_type(handle, column) == SQLITE_INTEGER ? sqlite3_column_int64(handle, column) : nil
        }

        /// The column as text: nil when it is not text or not UTF-8.
        func text(_ column: Int32) -> String? {
            guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let start = sqlite3_column_text(handle, column) else { return nil }
            return String(validating: UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }

        /// The column's bytes as a blob, valid until the next step: nil when it is not a blob.
        func blob(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
            guard sqlite3_column_type(handle, column) == SQLITE_BLOB else { return nil }
            let count = Int(sqlite3_column_bytes(handle, column))
            return UnsafeBufferPointer(start: sqlite3_column_blob(handle, column)?.assumingMemoryBound(to: UInt8.self), count: count)
        }

        /// A short description of the column's value, for a message about a damaged file.
        func describe(_ column: Int32) -> String {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: "\(sqlite3_column_int64(handle, column))"
            case SQLITE_FLOAT: "\(sqlite3_column_double(handle, column))"
            case SQLITE_NULL: "NULL"
            case SQLITE_BLOB: "a blob of \(sqlite3_column_bytes(handle, column)) bytes"
            default: text(column).map { "\"\($0.prefix(32))\"" } ?? "text that is not UTF-8"
            }
        }
    }
}

/// A value bound to a parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
}
