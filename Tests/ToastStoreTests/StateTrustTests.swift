// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastCore

@testable import ToastStore

#if canImport(Glibc)
import Glibc
#endif

/// What the adversarial review planted in a state directory (issue #38):
/// a directory or files of another user, symlinks, forged journal records
/// and counters out of range. Each must leave the store unavailable (toastd
/// then serves from memory) or be ignored, never be followed or applied.
/// The second-uid cases run the real daemon in IntegrationTests
/// (`StateDirectoryTrustTests`); these check the rules in process.
@Suite("State directory trust")
struct StateTrustTests {
    typealias Session = ToastStoreTests

    static func unavailableReason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch ToastStore.Failure.unavailable(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test func aDirectoryOfAnotherUidIsRefused() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o700)
        // Ours, as seen by another uid: the check is of the owner, not of the mode.
        #expect(throws: StateDirectory.Untrusted.self) { try StateDirectory.prepare(directory, uid: getuid() &+ 1) }
        #expect(throws: Never.self) { try StateDirectory.prepare(directory) }
    }

    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for mode: mode_t in [0o777, 0o1777, 0o720, 0o702] {
            chmod(directory, mode)
            let reason = Self.unavailableReason { _ = try ToastStore.open(directory: directory, historySize: 10) }
            #expect(reason?.contains("writable by other users") == true, "mode \(String(mode, radix: 8)): \(reason ?? "opened")")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/toastd.lock"), "nothing is created in a refused directory")
        chmod(directory, 0o755)
        #expect(Self.unavailableReason { _ = try ToastStore.open(directory: directory, historySize: 10) } == nil)
    }

    @Test func aSymlinkedDirectoryIsRefused() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let link = directory + "-link"
        symlink(directory, link)
        defer { unlink(link) }
        let reason = Self.unavailableReason { _ = try ToastStore.open(directory: link, historySize: 10) }
        #expect(reason?.contains("symbolic link") == true, "\(reason ?? "opened")")
    }

    /// A directory above the state directory that another user can write
    /// (and that is not sticky) could have the state directory swapped.
    @Test func anAncestorOthersCanWriteIsRefused() throws {
        let above = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: above) }
        chmod(above, 0o777)
        let reason = Self.unavailableReason { _ = try ToastStore.open(directory: above + "/state", historySize: 10) }
        #expect(reason?.contains("\(above) above it is writable by other users") == true, "\(reason ?? "opened")")
        chmod(above, 0o1777)
        #expect(Self.unavailableReason { _ = try ToastStore.open(directory: above + "/state", historySize: 10) } == nil, "sticky, as /tmp")
    }

    /// The reported attacks: a journal symlinked to a victim's file (which
    /// opening truncated), and a database symlinked elsewhere.
    @Test(arguments: ["toastd.journal-a", "toastd.sqlite", "toastd.sqlite-wal", "toastd.lock"])
    func aSymlinkedFileIsNeitherFollowedNorTruncated(name: String) throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "-victim"
        try Data("precious".utf8).write(to: URL(filePath: victim))
        defer { unlink(victim) }
        if name != "toastd.lock" {
            // A store that has run once, so that the journal gets emptied at open.
            _ = try ToastStore.open(directory: directory, historySize: 10)
        }
        unlink(directory + "/" + name)
        symlink(victim, directory + "/" + name)
        let reason = Self.unavailableReason { _ = try ToastStore.open(directory: directory, historySize: 10) }
        #expect(reason?.contains("symbolic link") == true, "\(reason ?? "opened")")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    }

    @Test func aFileWithTwoNamesIsRefusedAndAnOpenOneMadePrivate() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try ToastStore.open(directory: directory, historySize: 10)
        let database = directory + "/toastd.sqlite"
        chmod(database, 0o666)
        _ = try ToastStore.open(directory: directory, historySize: 10)
        var info = stat()
        #expect(stat(database, &info) == 0 && info.st_mode & 0o777 == 0o600, "a readable database is made 0600")
        link(database, directory + "-hardlink")
        defer { unlink(directory + "-hardlink") }
        let reason = Self.unavailableReason { _ = try ToastStore.open(directory: directory, historySize: 10) }
        #expect(reason?.contains("hard links") == true, "\(reason ?? "opened")")
    }

    /// A small file of the state directory (the bridge's owners): read
    /// back as written, 0600; never through a symlink, never past its limit,
    /// and a planted `.new` beside it is neither followed nor kept.
    @Test func aSmallFileIsReplacedWholeAndReadWithinItsLimit() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try StateDirectory.prepare(directory)
        let file = directory + "/small"
        #expect(try StateDirectory.readFile(file, limit: 10) == nil, "no file: nothing to read")
        try StateDirectory.replaceFile(file, with: Array("first".utf8))
        try StateDirectory.replaceFile(file, with: Array("second".utf8))
        #expect(try StateDirectory.readFile(file, limit: 10) == Array("second".utf8))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(access(file + ".new", F_OK) != 0, "nothing left beside it")

        #expect(throws: StateDirectory.Untrusted.self) { try StateDirectory.readFile(file, limit: 5) }

        let victim = directory + "-victim"
        try Data("precious".utf8).write(to: URL(filePath: victim))
        defer { unlink(victim) }
        symlink(victim, file + ".new")
        try StateDirectory.replaceFile(file, with: Array("third".utf8))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try StateDirectory.readFile(file, limit: 10) == Array("third".utf8))
        unlink(file)
        symlink(victim, file)
        #expect(throws: StateDirectory.Untrusted.self) { try StateDirectory.readFile(file, limit: 100) }
    }

    /// A journal record toastd did not write: unkeyed (the old format, once
    /// the database has a key), or signed with another key. Neither is
    /// applied; a record the store wrote itself is.
    @Test func aForgedJournalRecordIsNeverApplied() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, batches) = Session.session()
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
            try store.journal(batches[0])
        }
        let genuine = try [UInt8](Data(contentsOf: URL(filePath: directory + "/" + StepJournal.fileNames[0])))
        #expect(genuine.starts(with: Array("TJ02".utf8)))
        #expect(try ToastStore.open(directory: directory, historySize: 100).1.state.records.count == 1)

        for forge in ["unkeyed", "other key"] {
            // What a forger writes: a whole record of a step, numbered after the genuine one.
            var bytes = try Self.record(number: 1_000, batch: batches[0], key: .random())
            if forge == "unkeyed" {
                bytes.replaceSubrange(0..<4, with: Array("TJ01".utf8))
                let payload = bytes[StepJournal.headerSize...]
                let hash = StepJournal.legacyHash(number: 1_000, payload: payload)
                for index in 0..<8 { bytes[16 + index] = UInt8(truncatingIfNeeded: hash >> (8 * UInt64(index))) }
            }
            try Data(bytes).write(to: URL(filePath: directory + "/" + StepJournal.fileNames[1]))
            let (_, loaded) = try ToastStore.open(directory: directory, historySize: 100)
            #expect(loaded.state.records.count == 1, "\(forge): the forged step was applied")
            #expect(!loaded.notes.contains { $0.contains("applied") }, "\(forge): \(loaded.notes)")
        }
    }

    /// A record as `StepJournal.append` writes it, under `key`.
    static func record(number: UInt64, batch: ToastStore.Batch, key: SipHash.Key) throws -> [UInt8] {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try StepJournal(directory: directory, lastNumber: number - 1, key: key)
        try journal.append { JournalRecord.write(batch.rows, batch.counters, into: &$0) }
        return try [UInt8](Data(contentsOf: URL(filePath: directory + "/" + StepJournal.fileNames[0])))
    }

    /// Counters past what the protocol carries (2^63 trapped at every
    /// start; 2^53 handed out ids beyond 2^53 - 1): the store is
    /// unavailable, with the reason, and the file is left as it was.
    @Test(arguments: [("nextID", "9223372036854775808"), ("nextID", "9007199254740993"), ("lastSequence", "-1"), ("nextID", "'x'")])
    func aCounterOutOfRangeMakesTheStoreUnavailable(key: String, value: String) throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try ToastStore.open(directory: directory, historySize: 10)
        let sqlite = Process()
        sqlite.executableURL = URL(filePath: "/usr/bin/env")
        // A value SQLite cannot hold as an integer stays REAL or TEXT: out of range either way.
        sqlite.arguments = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, \(value))", (sys.argv[2],))
            db.commit()
            """, directory + "/toastd.sqlite", key]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        let reason = Self.unavailableReason { _ = try ToastStore.open(directory: directory, historySize: 10) }
        #expect(reason?.contains("damaged") == true && reason?.contains(key) == true, "\(reason ?? "opened")")
    }

    @Test func aJournaledCounterOutOfRangeMakesTheStoreUnavailable() throws {
        let directory = try Session.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, batches) = Session.session()
        do {
            let (store, _) = try ToastStore.open(directory: directory, historySize: 100)
            var batch = batches[0]
            batch.nextID = 1 << 63
            try store.journal(batch)
        }
        let reason = Self.unavailableReason { _ = try ToastStore.open(directory: directory, historySize: 100) }
        #expect(reason?.contains("out of range") == true, "\(reason ?? "opened")")
    }

    @Test func theDefaultLocationIsNeverASharedPath() {
        #expect(StateLocation.resolve(environment: ["HOME": "", "XDG_RUNTIME_DIR": "/run/user/7"]) == "/run/user/7/toastd-state")
        #expect(StateLocation.resolve(environment: ["HOME": "relative"]) == nil)
        #expect(StateLocation.resolve(environment: [:]) == nil)
        #expect(StateLocation.resolve(environment: ["HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/7"]) == "/h/.local/state/toastd")
    }
}

/// SipHash-2-4 against the reference vectors of its paper (appendix A):
/// key 00 01 .. 0f, messages 00 01 .. of each length.
@Suite("SipHash")
struct SipHashTests {
    static let key = SipHash.Key(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)

    @Test(arguments: [(0, 0x726f_db47_dd0e_0e31 as UInt64), (1, 0x74f8_39c5_93dc_67fd), (7, 0xab02_00f5_8b01_d137), (8, 0x93f5_f579_9a93_2462), (15, 0xa129_ca61_49be_45e5), (63, 0x958a_324c_eb06_4572)])
    func referenceVectors(length: Int, expected: UInt64) {
        var hasher = SipHash(key: Self.key)
        hasher.combine((0..<length).map { UInt8($0) })
        #expect(hasher.finalize() == expected)
    }

    @Test func theKeyReadsBackFromItsText() {
        let key = SipHash.Key.random()
        #expect(SipHash.Key(hex: key.hex) == key)
        #expect(Self.key.hex == "000102030405060708090a0b0c0d0e0f")
        #expect(SipHash.Key(hex: "zz") == nil)
    }
}
