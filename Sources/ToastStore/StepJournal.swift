// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The journal in front of the database: where a small step's changes are
/// made durable before its reply is written.
///
/// A lone add committed through SQLite cost its event loop about 120 µs
/// before the first subscriber heard of it, and the loop waited out each
/// WAL checkpoint (6–15 ms, one add in 256): most of what separated toastd
/// from its floor in the fan-out benchmark (docs/BENCHMARKS.md, section 3).
/// Appended here instead, the step is one `write` of a record; the commit
/// thread applies the journaled steps to the database later, in groups, and
/// the database notes the last record it holds (`journalApplied` in
/// `meta`). A record is in the page cache once `write` returns, so it
/// survives a killed process as a WAL commit with `synchronous=NORMAL` does,
/// and no more than that survives a power cut.
///
/// Two files take turns. When the steps journaled so far are handed to the
/// commit thread, new records go to the other file (if it is empty), and
/// the first is emptied once the database holds them. At start,
/// `ToastStore.open` applies every intact record newer than what the
/// database holds, in order, and empties both files.
///
/// A record: `TJ02`, the payload's length (UInt32), its number (UInt64),
/// a SipHash-2-4 of the number and the payload (UInt64) under the key the
/// database keeps (`journalKey` in `meta`), all little-endian, then the
/// payload (`JournalRecord`). A file is read up to its first record that is
/// cut short or does not match its hash; so a record written by anyone who
/// does not hold the key (the database is 0600) is never applied.
/// `TJ01` records, signed with an unkeyed FNV-1a by versions before the
/// key, are read only at the first start after an upgrade, when the
/// database has no key yet.
///
/// Confined to the daemon's event loop; `ToastStore` reads and empties it
/// only while opening, before the loop has it.
public final class StepJournal: @unchecked Sendable {
    public static let fileNames = ["toastd.journal-a", "toastd.journal-b"]
    static let magic: [UInt8] = Array("TJ02".utf8)
    static let legacyMagic: [UInt8] = Array("TJ01".utf8)
    static let headerSize = 24

    public enum Failure: Error, CustomStringConvertible {
        case unusable(String)

        public var description: String {
            switch self {
            case .unusable(let reason): reason
            }
        }
    }

    /// One file: its descriptor, its size, and whether it holds records
    /// the database may not have yet.
    private struct File {
        var descriptor: Int32
        var size: Int
        var holdsRecords: Bool
    }

    private var files: [File]
    /// The file records go to.
    private var active = 0
    /// The number of the newest record appended (or applied at open).
    public internal(set) var lastNumber: UInt64
    private var scratch: [UInt8] = []
    /// What signs the records.
    let key: SipHash.Key
    /// Whether `TJ01` records (unkeyed) are read: only when the database
    /// had no key, that is, was last written by a version before keys.
    let readsLegacyRecords: Bool

    /// Opens (or creates) both files in `directory`. `lastNumber` is where
    /// numbering goes on from: the newest record the database holds.
    init(directory: String, lastNumber: UInt64, key: SipHash.Key, readsLegacyRecords: Bool = false) throws(Failure) {
        self.key = key
        self.readsLegacyRecords = readsLegacyRecords
        var opened: [File] = []
        for name in Self.fileNames {
            let descriptor: Int32
            do {
                descriptor = try StateDirectory.openFile(directory + "/" + name, flags: O_RDWR | O_CREAT | O_APPEND)
            } catch {
                for file in opened { close(file.descriptor) }
                throw .unusable("cannot open \(directory)/\(name): \(error.reason)")
            }
            let size = Int(lseek(descriptor, 0, SEEK_END))
            opened.append(File(descriptor: descriptor, size: max(size, 0), holdsRecords: size > 0))
        }
        files = opened
        self.lastNumber = lastNumber
    }

    deinit {
        for file in files { close(file.descriptor) }
    }

    /// Appends a record of `payload` (written by `fill`) to the active file:
    /// durable against a killed process once this returns. On a failure the
    /// file is cut back to where it was, so that no torn record hides the
    /// ones after it.
    @discardableResult
    func append(_ fill: (inout JournalRecord.Writer) -> Void) throws(Failure) -> UInt64 {
        let number = lastNumber + 1
        // One buffer serves every record: moved into the writer and back,
        // so it is neither copied nor allocated again.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: Self.magic)
        scratch.append(contentsOf: repeatElement(0, count: Self.headerSize - Self.magic.count))
        var writer = JournalRecord.Writer(bytes: scratch)
        scratch = []
        fill(&writer)
        let payloadLength = writer.bytes.count - Self.headerSize
        guard payloadLength <= Int(UInt32.max) else { throw .unusable("a journal record of \(payloadLength) bytes is too large") }
        writer.overwrite(UInt64(payloadLength), width: 4, at: 4)
        writer.overwrite(number, width: 8, at: 8)
        writer.overwrite(Self.hash(number: number, payload: writer.bytes[Self.headerSize...], key: key), width: 8, at: 16)
        let bytes = writer.bytes
        var file = files[active]
        let written = bytes.withUnsafeBytes { Self.writeAll(file.descriptor, $0) }
        scratch = bytes
        if let error = written {
            _ = ftruncate(file.descriptor, off_t(file.size))
            throw .unusable("a journal write failed: \(Self.reason(error))")
        }
        file.size += bytes.count
        file.holdsRecords = true
        files[active] = file
        lastNumber = number
        return number
    }

    /// Called as the records so far are handed to the commit thread: new
    /// records go to the other file if it is empty. Returns the file the
    /// handed records are in, to `empty` once the database holds them, or
    /// nil when there is nothing to empty yet (the other file still waits
    /// for an earlier hand-off: the records stay, and a later turn empties
    /// them).
    public func turn() -> Int? {
        let other = 1 - active
        guard files[active].holdsRecords, !files[other].holdsRecords else { return nil }
        let handed = active
        active = other
        return handed
    }

    /// Empties file `index`, whose every record the database now holds.
    public func empty(_ index: Int) throws(Failure) {
        guard ftruncate(files[index].descriptor, 0) == 0 else {
            throw .unusable("cannot empty the journal: \(Self.reason(errno))")
        }
        files[index].size = 0
        files[index].holdsRecords = false
    }

    /// Both files' sizes, for tests.
    var sizes: [Int] { files.map(\.size) }

    // MARK: - Reading

    /// A record read back: its number and its payload.
    struct Record {
        var number: UInt64
        var payload: ArraySlice<UInt8>
    }

    /// Every intact record of both files, oldest first, and whether a file
    /// ended in a record that was not intact.
    func records() -> (records: [Record], torn: Bool) {
        var found: [Record] = []
        var torn = false
        for file in files {
            guard file.size > 0 else { continue }
            let (records, complete) = Self.parse(
                Self.readAll(file.descriptor, size: file.size), key: key, readsLegacyRecords: readsLegacyRecords)
            found += records
            torn = torn || !complete
        }
        return (found.sorted { $0.number < $1.number }, torn)
    }

    /// The intact records at the start of `bytes`, and whether they were
    /// all of it.
    static func parse(_ bytes: [UInt8], key: SipHash.Key, readsLegacyRecords: Bool = false) -> (records: [Record], complete: Bool) {
        var records: [Record] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerSize else { return (records, false) }
            let legacy = readsLegacyRecords && bytes[offset..<offset + 4].elementsEqual(legacyMagic)
            guard legacy || bytes[offset..<offset + 4].elementsEqual(magic) else { return (records, false) }
            var header = JournalRecord.Reader(bytes: bytes[offset + 4..<offset + headerSize])
            guard let length = try? header.count(), let number = try? header.integer(), let hash = try? header.integer() else {
                return (records, false)
            }
            let start = offset + headerSize
            guard length <= bytes.count - start else { return (records, false) }
            let payload = bytes[start..<start + length]
            let expected = legacy ? Self.legacyHash(number: number, payload: payload) : Self.hash(number: number, payload: payload, key: key)
            guard expected == hash else { return (records, false) }
            records.append(Record(number: number, payload: payload))
            offset = start + length
        }
        return (records, true)
    }

    // MARK: - Bytes

    static func hash(number: UInt64, payload: ArraySlice<UInt8>, key: SipHash.Key) -> UInt64 {
        var hasher = SipHash(key: key)
        hasher.combine(number)
        hasher.combine(payload)
        return hasher.finalize()
    }

    /// The unkeyed FNV-1a of `TJ01` records.
    static func legacyHash(number: UInt64, payload: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for shift in stride(from: 0, to: 64, by: 8) { hash = (hash ^ UInt64(UInt8(truncatingIfNeeded: number >> shift))) &* 0x100_0000_01b3 }
        for byte in payload { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// Writes every byte, or returns the errno that stopped it (a write
    /// that takes nothing counts as a full disk).
    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if count == 0 { return ENOSPC }
            offset += count
        }
        return nil
    }

    /// The file's first `size` bytes, or as many as it still has.
    private static func readAll(_ descriptor: Int32, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + offset, size - offset, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        return Array(bytes[..<offset])
    }

    /// errno as words; a full disk says so, as SQLite's own message does.
    static func reason(_ error: Int32) -> String {
        let text = String(cString: strerror(error))
        return error == ENOSPC ? "the disk is full (\(text))" : text
    }
}
