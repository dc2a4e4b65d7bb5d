// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// toastd reads its code back into the page cache in small pages once it
/// has let go of it (`CodeFolios`): a binary written whole or read in
/// sequence (installed, copied, checksummed) sits in large folios, and a
/// fault maps the whole folio it lands in, so an idle toastd held megabytes
/// of code it never ran. The test writes a copy of toastd so, then looks at
/// its code the way a fault does, from a mapping of its own: before (a
/// toastd that keeps its code pages, which does not read them back) and
/// after.
@Suite("toastd's code read back in small pages")
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

    /// The file ranges `daemon` maps of the toastd at `executable`: its
    /// code first, then the rest (read-only data, relocated and writable
    /// data), from its maps.
    static func mappedRanges(of executable: String, in daemon: DaemonFixture) throws -> (code: Range<Int>, others: [Range<Int>]) {
        let maps = try #require(ProcFile.bytes("/proc/\(daemon.process.processIdentifier)/maps"))
        var code: Range<Int>?
        var others: [Range<Int>] = []
        for entry in MappingsText.entries(maps, fields: []) where entry.path == executable {
            let range = Int(entry.offset)..<Int(entry.offset + entry.end - entry.start)
            if entry.permissions == "r-xp" { code = range } else { others.append(range) }
        }
        return (try #require(code), others)
    }

    /// Where in the file at `path` the bytes of `toastd_code_pages_reread`
    /// are, from binutils' nm and readelf: the one function the reading back
    /// runs, and so keeps as it was (a release build puts it in the hot
    /// blocks; a debug build anywhere).
    static func readingBackRange(of path: String) throws -> Range<Int> {
        func hex(_ field: Substring) -> Int? { Int(field.hasPrefix("0x") ? field.dropFirst(2) : field, radix: 16) }
        let segments = try DaemonFixture.run("/usr/bin/readelf", ["-lW", path]).stdout.split(separator: "\n")
            .map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            .filter { $0.first == "LOAD" }
            .compactMap { fields -> (offset: Int, address: Int, size: Int)? in
                guard let offset = hex(fields[1]), let address = hex(fields[2]), let size = hex(fields[4]) else { return nil }
                return (offset, address, size)
            }
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

    @Test(.enabled(if: kernelMapsLargeFolios))
    func toastdReadsItsCodeBackInSmallPages() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-folios")
        defer { directory.remove() }
        let toastd = directory.path + "/toastd"
        let built = try Data(contentsOf: DaemonFixture.binaryDirectory.appending(path: "toastd"))
        try Self.writeWhole([UInt8](built), to: toastd)
        // A toastctl beside it, which toastd holds after reading its code back: the sign that it has.
        let toastctl = directory.path + "/toastctl"
        try Data(repeating: 0x7f, count: 4096).write(to: URL(filePath: toastctl))

        let keeping = try DaemonFixture(environment: ["TOASTD_KEEP_CODE_PAGES": "1"], executable: toastd)
        #expect(ClientPagesIntegrationTests.mapping(of: toastctl, in: keeping) != nil)
        let (code, others) = try Self.mappedRanges(of: toastd, in: keeping)
        let probes = Self.probes(in: code, awayFrom: try others + [Self.readingBackRange(of: toastd)])
        #expect(probes.count >= 3, "code \(code), probes \(probes)")
        let before = probes.map { Self.mappedByOneFault(toastd, at: $0) }
        keeping.process.terminate()
        keeping.process.waitUntilExit()
        // The copy's code sits in large folios: a fault maps more than the pages around it.
        #expect(before.allSatisfy { $0 > Self.faultAround }, "bytes one fault maps, before: \(before)")

        let daemon = try DaemonFixture(executable: toastd)
        #expect(ClientPagesIntegrationTests.mapping(of: toastctl, in: daemon) != nil)
        let after = probes.map { Self.mappedByOneFault(toastd, at: $0) }
        // Read back in small folios.
        #expect(after.allSatisfy { $0 <= Self.faultAround }, "bytes one fault maps, after: \(after)")
        #expect(try daemon.toastctl("add", "after the reading back").status == 0)
    }
}
