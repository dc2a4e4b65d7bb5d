// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// The scheduler's counters as the store keeps them, and the checks that
/// keep a damaged file from handing out ids the protocol cannot carry.
extension ToastStore {
    /// The scheduler's counters a batch carries, kept in `meta`.
    struct Counters: Equatable {
        var nextID: ToastID
        var lastSequence: UInt64
        var pausedLevel: Int
        var modes: [String]
        var journaled: UInt64 = 0
    }

    /// The largest id or sequence number the protocol can carry (2^53 - 1).
    static let maxCounter: UInt64 = (1 << 53) - 1

    /// A store whose content is out of range: toastd does not trust it,
    /// and serves from memory (degraded), leaving the file for a look.
    struct Damaged: Error, CustomStringConvertible {
        var reason: String
        var description: String { "the stored state is damaged: \(reason); the file was left as it is" }
    }

    /// A counter of `meta`, nil when absent; one that is not an integer in
    /// `range` throws `Damaged`.
    static func meta(_ db: SQLiteDatabase, _ key: String, in range: ClosedRange<UInt64>) throws -> UInt64? {
        try metaValue(db, key) { row -> UInt64 in
            guard let int = row.integer(0), int >= 0, range.contains(UInt64(int)) else {
                throw Damaged(reason: "meta's \(key) is \(row.describe(0)), not an integer in \(range)")
            }
            return UInt64(int)
        }
    }

    /// A text of `meta`, nil when absent; one that is not text throws `Damaged`.
    static func metaText(_ db: SQLiteDatabase, _ key: String) throws -> String? {
        try metaValue(db, key) { row -> String in
            guard let text = row.text(0) else { throw Damaged(reason: "meta's \(key) is \(row.describe(0)), not text") }
            return text
        }
    }

    /// `meta`'s row for `key`, read by `read`; nil when there is none.
    private static func metaValue<Value>(_ db: SQLiteDatabase, _ key: String, _ read: (SQLiteDatabase.Row) throws -> Value) throws -> Value? {
        let query = try db.statement("SELECT value FROM meta WHERE key = ?")
        try query.bind(.text(key))
        return try query.first(read)
    }

    /// A journaled step's counters must be what a scheduler can hold.
    static func validate(_ counters: Counters, record number: UInt64) throws {
        guard number <= maxCounter, counters.nextID >= 1, counters.nextID <= maxCounter + 1, counters.lastSequence <= maxCounter,
            counters.pausedLevel >= 0, UInt64(counters.pausedLevel) <= maxCounter
        else {
            throw Damaged(
                reason: "journal record \(number) holds counters out of range "
                    + "(next id \(counters.nextID), last sequence \(counters.lastSequence), paused level \(counters.pausedLevel))"
            )
        }
    }
}
