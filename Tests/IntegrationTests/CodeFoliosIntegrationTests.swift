// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// toastd keeps the code pages its start-up touched when the page cache
/// holds its binary in small folios, and lets go of them and reads its code
/// back in small folios when it holds it in large ones (`LargeFolios`,
/// `CodePages`, `CodeFolios`): a binary written whole or read in sequence
/// (installed, copied, checksummed) sits in large folios, and a fault maps
/// the whole folio it lands in, so a toastd that kept its pages held
/// megabytes of code it never ran. The tests write copies of toastd both
/// ways, then look at their code the way a fault does, from a mapping of
/// their own, and at what toastd keeps mapped.
@Suite("toastd's code pages, kept in small folios and read back from large ones")
struct CodeFoliosIntegrationTests {
    /// What the kernel maps around a faulting page of a file in small pages
    /// (`fault_around_bytes`, 64 KiB by default).
    static let faultAround = 64 * 1024
    static let block = 2 << 20

    /// Writes `bytes` to a new file at `path` with one write, as an
    /// installer may: the page cache then holds it in folios as large as
    /// the kernel makes them (2 MiB here). A file read in sequence ends up
    /// so too, past its first megabytes, as readahead grows.
    static func writeWhole(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            written += count
        }
        fsync(fd)
    }

    /// Writes `bytes` to a new file at `path` a page at a time, as a copy
    /// through a pipe does: the page cache then holds it in small folios.
    static func writeInPages(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + start, min(4096, $0.count - start)) }
            guard count > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
        fsync(fd)
    }

    /// The bytes of `path` that one read fault at `offset` maps, in a
    /// private mapping of the 2 MiB block around it, placed on a 2 MiB
    /// boundary as toastd's code is.
    static func mappedByOneFault(_ path: String, at offset: Int) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        guard let reserved = mmap(nil, 2 * block, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), reserved != MAP_FAILED else { return 0 }
        defer { munmap(reserved, 2 * block) }
        let aligned = (Int(bitPattern: reserved) + block - 1) / block * block
        let start = offset / block * block
        guard let window = mmap(UnsafeMutableRawPointer(bitPattern: aligned), block, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, off_t(start)),
            window != MAP_FAILED
        else { return 0 }
        madvise(window + (offset - start) / 4096 * 4096, 4096, MADV_POPULATE_READ)
        guard let smaps = ProcFile.bytes("/proc/self/smaps"),
            let window = MappingsText.entries(smaps, fields: ["Rss:"]).first(where: { $0.start == UInt(aligned) })
        else { return 0 }
        return window.values[0] * 1024
    }

    /// Whether this kernel keeps a file written whole in large folios and
    /// maps a whole one on a fault: a scratch file of 16 MiB, written so,
    /// then faulted at eight places. Where it does not, there is nothing to
    /// read back.
    static let kernelMapsLargeFolios: Bool = {
        guard let directory = try? TemporaryDirectory(prefix: "toastd-folios") else { return false }
        defer { directory.remove() }
        let path = directory.path + "/scratch"
        guard (try? writeWhole([UInt8](repeating: 0x5a, count: 16 << 20), to: path)) != nil else { return false }
        return (0..<8).contains { mappedByOneFault(path, at: ($0 * 2 + 1) << 20) > faultAround }
    }()

    static func hex(_ field: Substring) -> Int? { Int(field.hasPrefix("0x") ? field.dropFirst(2) : field, radix: 16) }

    /// The loadable segments of the ELF file at `path`, from binutils' readelf.
    static func loadSegments(of path: String) throws -> [(offset: Int, address: Int, size: Int, executes: Bool)] {
        let lines = try DaemonFixture.run("/usr/bin/readelf", ["-lW", path]).stdout.split(separator: "\n")
        var segments: [(offset: Int, address: Int, size: Int, executes: Bool)] = []
        for line in lines {
            let fields: [Substring] = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[0] == "LOAD" else { continue }
            guard let offset = hex(fields[1]), let address = hex(fields[2]), let size = hex(fields[4]) else { continue }
            // The flags ("R E", "RW") sit between the sizes and the alignment.
            let executes = fields[6..<(fields.count - 1)].contains("E")
            segments.append((offset, address, size, executes))
        }
        return segments
    }

    /// The file range of toastd's code at `path`, and those of its other
    /// segments (read-only data, relocated and writable data), each widened
    /// to whole pages as they are mapped.
    static func codeRanges(of path: String) throws -> (code: Range<Int>, others: [Range<Int>]) {
        var code: Range<Int>?
        var others: [Range<Int>] = []
        for segment in try loadSegments(of: path) {
            let first: Int = segment.offset / 4096 * 4096
            let end: Int = (segment.offset + segment.size + 4095) / 4096 * 4096
            if segment.executes, code == nil { code = first..<end } else { others.append(first..<end) }
        }
        return (try #require(code, "readelf shows no code segment in \(path)"), others)
    }

    /// Where in the file at `path` the bytes of `toastd_code_pages_reread`
    /// are, from binutils' nm and readelf: the one function the reading back
    /// runs, and so keeps as it was (a release build puts it in the hot
    /// blocks; a debug build anywhere).
    static func readingBackRange(of path: String) throws -> Range<Int> {
        let segments = try loadSegments(of: path)
        let symbols = try DaemonFixture.run("/usr/bin/nm", ["--defined-only", "--print-size", path]).stdout.split(separator: "\n")
        let fields: [[Substring]] = symbols.map { $0.split(separator: " ") }
        let symbol = try #require(fields.first { $0.count == 4 && $0[3] == "toastd_code_pages_reread" }, "nm names no toastd_code_pages_reread")
        let address = try #require(hex(symbol[0]))
        let size = hex(symbol[1]) ?? 1
        let segment = try #require(segments.first { $0.address <= address && address < $0.address + $0.size })
        let offset = address - segment.address + segment.offset
        return offset..<(offset + size)
    }

    /// The middle of each 2 MiB block of `code` that lies wholly inside it,
    /// away from `kept`: a block is one folio at most, and one that holds
    /// a page toastd keeps mapped cannot be dropped.
    static func probes(in code: Range<Int>, awayFrom kept: [Range<Int>]) -> [Int] {
        stride(from: (code.lowerBound + block - 1) / block * block, through: code.upperBound - block, by: block)
            .filter { start in !kept.contains { $0.overlaps(start..<(start + block)) } }
            .map { $0 + block / 2 }
    }

    /// A copy of the build's toastd at `directory/toastd`, written `whole`
    /// or a page at a time, with a toastctl beside it, which toastd holds
    /// once it has settled its code: the sign that it has.
    static func copyOfToastd(in directory: TemporaryDirectory, whole: Bool) throws -> (toastd: String, toastctl: String) {
        let toastd = directory.path + "/toastd"
        let built = [UInt8](try Data(contentsOf: DaemonFixture.binaryDirectory.appending(path: "toastd")))
        try (whole ? writeWhole : writeInPages)(built, toastd)
        let toastctl = directory.path + "/toastctl"
        try Data(repeating: 0x7f, count: 4096).write(to: URL(filePath: toastctl))
        return (toastd, toastctl)
    }

    /// The line toastd logged about its code pages, once it has stopped.
    static func settledLine(of daemon: DaemonFixture) -> String {
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        let log = String(decoding: daemon.log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return log.split(separator: "\n").first { $0.contains("start-up code pages") }.map(String.init) ?? log
    }

    static let debugLog = ["--log-level", "debug", "--log-target", "stderr"]

    @Test(.enabled(if: kernelMapsLargeFolios))
    func toastdWrittenWholeLetsGoOfItsCodeAndReadsItBackInSmallFolios() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-folios")
        defer { directory.remove() }
        let (toastd, toastctl) = try Self.copyOfToastd(in: directory, whole: true)
        let (code, others) = try Self.codeRanges(of: toastd)
        let probes = Self.probes(in: code, awayFrom: others + [try Self.readingBackRange(of: toastd)])
        #expect(probes.count >= 3, "code \(code), probes \(probes)")
        // The copy's code sits in large folios: a fault maps more than the pages around it.
        let before = probes.map { Self.mappedByOneFault(toastd, at: $0) }
        #expect(before.allSatisfy { $0 > Self.faultAround }, "bytes one fault maps, before: \(before)")

        let daemon = try DaemonFixture(arguments: Self.debugLog, executable: toastd)
        #expect(ClientPagesIntegrationTests.mapping(of: toastctl, in: daemon) != nil)
        let after = probes.map { Self.mappedByOneFault(toastd, at: $0) }
        // Read back in small folios.
        #expect(after.allSatisfy { $0 <= Self.faultAround }, "bytes one fault maps, after: \(after)")
        #expect(try daemon.toastctl("add", "after the reading back").status == 0)
        let line = Self.settledLine(of: daemon)
        #expect(line.contains("let go of start-up code pages") && line.contains("folios=large"), "\(line)")
    }

    /// In small folios, toastd keeps what its start-up touched: its mapped
    /// file pages stay above four thirds of those of a toastd told to let
    /// go of them (`TOASTD_RELEASE_CODE_PAGES`; about half in this debug
    /// build, linked to the Swift libraries), whose later requests bring
    /// back only what they run.
    @Test func toastdInSmallFoliosKeepsItsStartUpCode() throws {
        let kept = try TemporaryDirectory(prefix: "toastd-folios")
        let released = try TemporaryDirectory(prefix: "toastd-folios")
        defer {
            kept.remove()
            released.remove()
        }
        let (keptToastd, keptToastctl) = try Self.copyOfToastd(in: kept, whole: false)
        let (releasedToastd, releasedToastctl) = try Self.copyOfToastd(in: released, whole: false)
        let keeping = try DaemonFixture(arguments: Self.debugLog, executable: keptToastd)
        let releasing = try DaemonFixture(arguments: Self.debugLog, environment: ["TOASTD_RELEASE_CODE_PAGES": "1"], executable: releasedToastd)
        #expect(ClientPagesIntegrationTests.mapping(of: keptToastctl, in: keeping) != nil)
        #expect(ClientPagesIntegrationTests.mapping(of: releasedToastctl, in: releasing) != nil)
        for index in 0..<5 {
            #expect(try keeping.toastctl("add", "kept \(index)").status == 0)
            #expect(try releasing.toastctl("add", "released \(index)").status == 0)
        }
        let keptKiB = JournalAndUnitTests.mappedFileKiB(keeping.process.processIdentifier)
        let releasedKiB = JournalAndUnitTests.mappedFileKiB(releasing.process.processIdentifier)
        #expect(releasedKiB * 4 / 3 < keptKiB, "\(keptKiB) KiB of file pages mapped kept, \(releasedKiB) KiB let go of")
        let keptLine = Self.settledLine(of: keeping)
        #expect(keptLine.contains("kept start-up code pages") && keptLine.contains("folios=small"), "\(keptLine)")
        let releasedLine = Self.settledLine(of: releasing)
        #expect(releasedLine.contains("let go of start-up code pages") && releasedLine.contains("folios=small"), "\(releasedLine)")
    }
}
