// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import ToastDaemon
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

@Suite("Huge code pages")
struct HugeCodePagesTests {
    static let block = HugeCodePages.blockSize

    @Test("only 2 MiB blocks aligned in memory and in the file, wholly inside the mapping, and no more than asked")
    func choosesBlocks() {
        // toastd's code as the release build lays it out: on a boundary.
        #expect(HugeCodePages.blocks(start: 4 * Self.block, end: 10 * Self.block + 0x1234, offset: 4 * Self.block, limit: 2)
            == [4 * Self.block, 5 * Self.block])
        // Starting inside a block: the first whole one, in the file as well.
        #expect(HugeCodePages.blocks(start: 0x311000, end: 0x900000, offset: 0x311000, limit: 2) == [0x400000, 0x600000])
        // Memory and file not congruent (a 4 KiB-aligned link): none.
        #expect(HugeCodePages.blocks(start: 0x312000, end: 0x900000, offset: 0x311000, limit: 2).isEmpty)
        // A mapping that ends inside its second block gives one.
        #expect(HugeCodePages.blocks(start: Self.block, end: 3 * Self.block - 0x1000, offset: 0, limit: 2) == [Self.block])
        // Exactly one block; smaller than one; nothing asked.
        #expect(HugeCodePages.blocks(start: Self.block, end: 2 * Self.block, offset: 0, limit: 2) == [Self.block])
        #expect(HugeCodePages.blocks(start: 0x400000, end: 0x5ff000, offset: 0, limit: 2).isEmpty)
        #expect(HugeCodePages.blocks(start: 0x400000, end: 0x800000, offset: 0, limit: 0).isEmpty)
    }

    @Test("huge pages are on unless the kernel's setting is never")
    func readsTheSetting() {
        #expect(HugeCodePages.offersHugePages(setting: "always [madvise] never\n"))
        #expect(HugeCodePages.offersHugePages(setting: "[always] madvise never\n"))
        #expect(!HugeCodePages.offersHugePages(setting: "always madvise [never]\n"))
        #expect(!HugeCodePages.offersHugePages(setting: ""))
    }

    @Test("the executable's code is its one executable mapping; the blocks' huge bytes are read from smaps")
    func readsMappings() throws {
        let maps = """
            5600c1a00000-5600c1d12000 r--p 00000000 fe:00 42 /usr/bin/toastd
            5600c1e00000-5600c2a7f000 r-xp 00400000 fe:00 42 /usr/bin/toastd
            5600c2c00000-5600c2c7d000 r--p 01000000 fe:00 42 /usr/bin/toastd
            7f3a10000000-7f3a10200000 r-xp 00000000 fe:00 7 /usr/lib/libc.so.6

            """
        let code = try #require(HugeCodePages.code(maps: Array(maps.utf8), executable: "/usr/bin/toastd"))
        #expect(code.start == 0x5600_c1e0_0000 && code.end == 0x5600_c2a7_f000 && code.offset == 0x40_0000)
        #expect(HugeCodePages.code(maps: Array(maps.utf8), executable: "/usr/bin/other") == nil)
        #expect(HugeCodePages.blocks(start: code.start, end: code.end, offset: code.offset, limit: 2)
            == [0x5600_c1e0_0000, 0x5600_c200_0000])

        let smaps = """
            5600c1e00000-5600c2000000 r-xp 00400000 fe:00 42 /usr/bin/toastd
            Rss:                2048 kB
            FilePmdMapped:      2048 kB
            5600c2000000-5600c2200000 r-xp 00600000 fe:00 42 /usr/bin/toastd
            Rss:                 128 kB
            FilePmdMapped:         0 kB
            5600c2200000-5600c2a7f000 r-xp 00800000 fe:00 42 /usr/bin/toastd
            FilePmdMapped:      2048 kB

            """
        #expect(HugeCodePages.mappedHuge(smaps: Array(smaps.utf8), blocks: [0x5600_c1e0_0000, 0x5600_c200_0000]) == 2 << 20)
    }

    /// The kernel's own behaviour, on a file of ours mapped as toastd's code
    /// is: its two blocks, read into the page cache in small pages by the
    /// write, end up mapped with one huge page each.
    @Test("a file's blocks in small pages are mapped with huge pages", .enabled(if: HugeCodePages.kernelOffersHugePages))
    func mapsAFileHuge() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huge-code-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("code").path
        let size = Int(3 * Self.block)
        // Written a page at a time, as a small copy does: the page cache then
        // holds the file in small pages (one large write leaves it in 2 MiB
        // folios, which the kernel maps huge without being asked).
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(file >= 0)
        defer { close(file) }
        for page in 0..<(size / 4096) {
            let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: page), count: 4096)
            try #require(bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == 4096)
        }
        fsync(file)

        // Address space for the file at a 2 MiB boundary, one block into it.
        let reserved = try #require(mmap(nil, size + Int(Self.block), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(reserved, size + Int(Self.block)) }
        let aligned = (UInt(bitPattern: reserved) + Self.block - 1) / Self.block * Self.block
        let mapped = mmap(UnsafeMutableRawPointer(bitPattern: aligned), size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, file, 0)
        try #require(mapped != MAP_FAILED)
        // Pages touched first in small pages, as start-up does.
        var sum = 0
        for page in stride(from: 0, to: size, by: 4096) { sum &+= Int(mapped!.load(fromByteOffset: page, as: UInt8.self)) }
        #expect(sum > 0)
        #expect(Self.hugeBytes(at: aligned) == 0)

        let entry = MappingsText.Entry(start: aligned, end: aligned + UInt(size), permissions: "r-xp", offset: 0, path: path, values: [])
        let huge = HugeCodePages.map(entry, of: file, limit: 2)
        #expect(huge.bytes == 2 * Int(Self.block))
        #expect(huge.blocks == [aligned, aligned + Self.block])
        #expect(Self.hugeBytes(at: aligned) + Self.hugeBytes(at: aligned + Self.block) == 2 * Int(Self.block))
        // The bytes are the file's still.
        let page = Int(Self.block) / 4096 + 5
        #expect(mapped!.load(fromByteOffset: page * 4096, as: UInt8.self) == UInt8(truncatingIfNeeded: page))
    }

    /// FilePmdMapped of the mapping of this process that starts at `start`.
    static func hugeBytes(at start: UInt) -> Int {
        guard let smaps = ProcFile.bytes("/proc/self/smaps") else { return 0 }
        return HugeCodePages.mappedHuge(smaps: smaps, blocks: [start])
    }
}
