// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
import ToastSystem
#endif

/// Maps the code every request runs with two 2 MiB pages instead of a few
/// hundred 4 KiB ones.
///
/// On this kind of machine (a virtual machine), a 4 KiB page touched for the
/// first time after a rest of some minutes costs 3.7 to 11 µs, and a request
/// runs through about 175 pages of toastd's code: that, more than anything
/// toastd computes, is what the first toast after a rest waits for. A 2 MiB
/// page costs about as much as 15 to 40 small ones (docs/BENCHMARKS.md,
/// "Huge pages for the hot code").
///
/// The release build starts toastd's code on a 2 MiB boundary, in the file
/// and in memory, with every function a request runs in the first two
/// blocks (scripts/build-release.sh, `HUGE_CODE`; scripts/toastd.order).
/// The kernel maps a block of a file with one huge page when its page cache
/// holds the block as one 2 MiB folio, which it reads so for a mapping
/// marked `MADV_HUGEPAGE`. So each block is marked, unmapped and touched
/// again; where the page cache still held it in small pages (the file was
/// just installed), those are dropped (`POSIX_FADV_DONTNEED`: only pages no
/// process maps go) and the block is read back whole. The pages stay the
/// file's, shared and clean; only the blocks' 4 MiB are resident for good,
/// where the pages a request touches were about 0.7 MiB.
///
/// Best effort: where the code is not so laid out (a debug build), or the
/// kernel maps the block in small pages after all, nothing else changes.
public enum HugeCodePages {
    public static let blockSize: UInt = 2 << 20
    /// The blocks, from the start of the code, that hold what a request runs.
    public static let hotBlocks = 2

    /// The blocks of a mapping that can be mapped huge: 2 MiB-aligned in
    /// memory and in the file, wholly inside the mapping; the first `limit`.
    static func blocks(start: UInt, end: UInt, offset: UInt, limit: Int) -> [UInt] {
        guard start < end, start % blockSize == offset % blockSize else { return [] }
        var blocks: [UInt] = []
        var block = (start + blockSize - 1) / blockSize * blockSize
        while blocks.count < limit, block <= end, end - block >= blockSize {
            blocks.append(block)
            block += blockSize
        }
        return blocks
    }

    /// The executable's code in a maps text: its one mapping that executes.
    static func code(maps: [UInt8], executable: String) -> MappingsText.Entry? {
        MappingsText.entries(maps, fields: []).first { $0.path == executable && $0.permissions == "r-xp" }
    }

    /// The bytes of the blocks at `blocks` that an smaps text shows mapped
    /// with huge pages. Marking the blocks splits them off the code's
    /// mapping; next to each other, with the same marks, they are merged into
    /// one mapping again, which starts at the first. smaps counts huge bytes
    /// per mapping, so only the total is known, not which block is huge:
    /// when any is not, every block is dropped and read back.
    static func mappedHuge(smaps: [UInt8], blocks: [UInt]) -> Int {
        MappingsText.entries(smaps, fields: ["FilePmdMapped:"])
            .filter { blocks.contains($0.start) }
            .reduce(0) { $0 + $1.values[0] * 1024 }
    }

    /// Whether the kernel maps anything with huge pages: transparent huge
    /// pages not switched off (`[never]`). Where they are, `map` would drop
    /// and read back the blocks for nothing.
    public static var kernelOffersHugePages: Bool {
        ProcFile.read("/sys/kernel/mm/transparent_hugepage/enabled").map(offersHugePages(setting:)) ?? false
    }

    /// The setting's text, `always [madvise] never`, names the one in force in brackets.
    static func offersHugePages(setting: String) -> Bool {
        setting.contains("[") && !setting.contains("[never]")
    }

    /// What `map` did.
    public struct Mapped: Sendable {
        /// The blocks it marked and mapped again, huge or not: their addresses.
        public var blocks: [UInt] = []
        /// The bytes of them mapped with huge pages.
        public var bytes = 0
    }

    /// Maps the first `limit` blocks of `mapping`, a private mapping of
    /// `file`, with huge pages.
    static func map(_ mapping: MappingsText.Entry, of file: Int32, limit: Int) -> Mapped {
        let blocks = blocks(start: mapping.start, end: mapping.end, offset: mapping.offset, limit: limit)
        guard !blocks.isEmpty else { return Mapped() }
        for (index, block) in blocks.enumerated() {
            guard madvise(UnsafeMutableRawPointer(bitPattern: block), Int(blockSize), MADV_HUGEPAGE) == 0 else {
                return Mapped(blocks: Array(blocks[..<index]))
            }
            remap(block)
        }
        let mapped = huge(blocks)
        guard mapped < blocks.count * Int(blockSize) else { return Mapped(blocks: blocks, bytes: mapped) }
        // The page cache holds some block in small pages: drop the blocks'
        // pages (those no process maps; a page not yet written back stays,
        // hence the sync) and read them back whole.
        fdatasync(file)
        for block in blocks {
            madvise(UnsafeMutableRawPointer(bitPattern: block), Int(blockSize), MADV_DONTNEED)
            let offset = OwnExecutable.fileOffset(of: block, start: mapping.start, offset: mapping.offset)
            posix_fadvise(file, off_t(offset), off_t(blockSize), POSIX_FADV_DONTNEED)
            touch(block)
        }
        return Mapped(blocks: blocks, bytes: huge(blocks))
    }

    /// Unmaps a block and maps it again.
    private static func remap(_ block: UInt) {
        madvise(UnsafeMutableRawPointer(bitPattern: block), Int(blockSize), MADV_DONTNEED)
        touch(block)
    }

    /// Faults in a block's first page, which maps the whole block when it
    /// can be mapped huge (a few pages around it otherwise).
    private static func touch(_ block: UInt) {
        madvise(UnsafeMutableRawPointer(bitPattern: block), Int(getpagesize()), MADV_POPULATE_READ)
    }

    private static func huge(_ blocks: [UInt]) -> Int {
        ProcFile.bytes("/proc/self/smaps").map { mappedHuge(smaps: $0, blocks: blocks) } ?? 0
    }
}
