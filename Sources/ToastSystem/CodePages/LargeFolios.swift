// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Whether the page cache holds this process's code in large folios, which
/// a fault maps whole.
///
/// Since Linux 6.16, ext4 keeps a file written whole, or read in sequence
/// (an installer, a copy, a checksum, a backup), in folios of up to 2 MiB,
/// and a fault maps the whole folio it lands in. A toastd that keeps the
/// code pages its start-up touched then keeps the folios around them:
/// 16.2 MiB of PSS where 8.4 is usual (docs/BENCHMARKS.md, "Large folios"
/// and "An hour at rest, twice"). So toastd keeps its code pages only where
/// this says no; where it says yes, it lets go of them and reads its code
/// back in small folios (`CodePages`, `CodeFolios`).
///
/// The test is what a fault does: a page of the code that this process maps
/// (so one in the page cache: touching it reads nothing from the disk) is
/// faulted in again, in a private mapping of its 2 MiB of the file placed
/// on a 2 MiB boundary, and `/proc/self/pagemap` tells which pages of that
/// mapping the fault mapped. In small folios, only the 64 KiB around it
/// (`fault_around_bytes`); in a large folio, the folio. A few pages are
/// tried, spread over the code: a file read in sequence sits in small folios
/// at its start and in larger ones further on. About 0.1 ms in all.
public enum LargeFolios {
    static let pageSize = 4096
    /// The file's 2 MiB a probe maps, and where a large folio ends at most.
    static let window = 2 << 20
    /// What a fault maps around its page in small folios: 64 KiB, aligned.
    static let faultAroundPages = 16

    /// Whether a fault at any of up to `probes` pages of `code` (the
    /// executable's code mapping, as /proc/self/maps has it) that this
    /// process maps, outside `blocks` (each `blockSize` long), maps more
    /// than the pages around it.
    public static func hold(
        _ code: MappingsText.Entry, of executable: borrowing OwnExecutable, excluding blocks: [UInt], blockSize: UInt, probes: Int = 8
    ) -> Bool {
        guard code.start < code.end else { return false }
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return false }
        defer { close(pagemap) }
        let mapped = present(pagemap: entries(pagemap, at: code.start, pages: Int(code.end - code.start) / pageSize))
        let pages = probePages(mapped, start: code.start, excluding: blocks, blockSize: blockSize, count: probes)
        return pages.contains { page in
            faultMapsMore(executable.file, at: Int(OwnExecutable.fileOffset(of: page, start: code.start, offset: code.offset)), pagemap: pagemap)
        }
    }

    /// Which pages a pagemap excerpt shows present: bit 63 of each
    /// little-endian 8-byte entry, one a page.
    static func present(pagemap bytes: [UInt8]) -> [Bool] {
        stride(from: 0, to: bytes.count - bytes.count % 8, by: 8).map { bytes[$0 + 7] & 0x80 != 0 }
    }

    /// Whether a fault at page `touched` of a window mapped `present`
    /// outside the aligned 64 KiB around it.
    static func mappedBeyondFaultAround(_ present: [Bool], touched: Int) -> Bool {
        let first = touched / faultAroundPages * faultAroundPages
        let around = first..<(first + faultAroundPages)
        return present.indices.contains { present[$0] && !around.contains($0) }
    }

    /// Up to `count` of the pages `present` shows mapped in a mapping from
    /// `start`, outside `blocks`, spread evenly over them: their addresses.
    static func probePages(_ present: [Bool], start: UInt, excluding blocks: [UInt], blockSize: UInt, count: Int) -> [UInt] {
        let candidates = present.indices.lazy.filter { present[$0] }
            .map { start + UInt($0 * pageSize) }
            .filter { page in !blocks.contains { $0 <= page && page < $0 + blockSize } }
        let pages = Array(candidates)
        guard count > 0, !pages.isEmpty else { return [] }
        let step = max(1, pages.count / count)
        return Array(stride(from: step / 2, to: pages.count, by: step).prefix(count).map { pages[$0] })
    }

    /// The pagemap entries of `pages` pages from `address` (8 bytes each).
    static func entries(_ pagemap: Int32, at address: UInt, pages: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: pages * 8)
        let count = bytes.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, $0.count, off_t(address / UInt(pageSize) * 8)) }
        return count > 0 ? Array(bytes[..<count]) : []
    }

    /// Faults in the page at `offset` of `file` in a private mapping of
    /// the 2 MiB around it, placed on a 2 MiB boundary; whether the fault
    /// mapped more than the pages around it.
    static func faultMapsMore(_ file: Int32, at offset: Int, pagemap: Int32) -> Bool {
        guard let reserved = mmap(nil, 2 * window, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
            reserved != MAP_FAILED
        else { return false }
        defer { munmap(reserved, 2 * window) }
        let aligned = (UInt(bitPattern: reserved) + UInt(window) - 1) / UInt(window) * UInt(window)
        let start = offset / window * window
        guard let probe = mmap(UnsafeMutableRawPointer(bitPattern: aligned), window, PROT_READ, MAP_PRIVATE | MAP_FIXED, file, off_t(start)),
            probe != MAP_FAILED
        else { return false }
        let touched = (offset - start) / pageSize
        guard madvise(probe + touched * pageSize, pageSize, MADV_POPULATE_READ) == 0 else { return false }
        return mappedBeyondFaultAround(present(pagemap: entries(pagemap, at: aligned, pages: window / pageSize)), touched: touched)
    }
}
