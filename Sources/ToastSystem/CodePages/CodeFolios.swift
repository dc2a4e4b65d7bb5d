// SPDX-License-Identifier: Apache-2.0
import CCodePages
#if canImport(Glibc)
import Glibc
#endif

/// Reads this process's code back into the page cache in small pages once
/// it has let go of it, so that what it faults in again maps only what it
/// runs: toastd's (outside its hot blocks, where `LargeFolios` finds its
/// binary in large ones), and toast-overlay's.
///
/// Since Linux 6.16, ext4 keeps a file that was read in sequence (copied,
/// installed, checksummed, backed up: with this machine's 8 MiB of
/// readahead) in large page-cache folios, and a fault in a file mapping
/// maps the whole folio it lands in. After such a read of the binary, the
/// few pages an idle toastd runs outside its hot blocks brought in the
/// folios around them: 2.6 MiB of code where 0.8 is usual, and an idle PSS
/// of 11.2 MiB instead of 8.3, more than dunst's (docs/BENCHMARKS.md,
/// "Large folios").
///
/// So, after `CodePages` has let go of start-up's pages and
/// `HugeCodePages` has mapped the hot blocks, the executable's released
/// ranges outside those blocks are unmapped again (what this thread ran
/// since), dropped from the page cache (`POSIX_FADV_DONTNEED`: only pages
/// no process maps go, so another toastd's stay) and read back at once
/// (`POSIX_FADV_WILLNEED` reads in small folios), so that no request waits
/// on the disk for them. Only the process's own executable is touched,
/// never a library that other processes share. The pages the thread runs
/// on between the unmapping and the dropping stay in the folio they were
/// in: that is one C function (`toastd_code_pages_reread`), which the
/// release builds of toastd and toast-overlay put first in their ordered
/// code (scripts/TOOL.order), and which calls the C library without the
/// PLT (`-fno-plt`), whose page is elsewhere.
public enum CodeFolios {
    /// A range of the executable's mappings, and where it is in the file.
    struct Span: Equatable {
        var address: UInt
        var length: UInt
        var offset: UInt
    }

    /// The ranges of `released` that map `executable`, without `blocks`
    /// (each `blockSize` long, from its address), with their file offsets.
    static func spans(of released: [CodePages.Mapping], executable: String, excluding blocks: [UInt], blockSize: UInt) -> [Span] {
        var spans: [Span] = []
        for mapping in released where mapping.path == executable && mapping.start < mapping.end {
            var pieces = [(mapping.start, mapping.end)]
            for block in blocks {
                let blockEnd = block + blockSize
                pieces = pieces.flatMap { start, end -> [(UInt, UInt)] in
                    guard block < end, blockEnd > start else { return [(start, end)] }
                    return [(start, max(start, block)), (min(end, blockEnd), end)].filter { $0.0 < $0.1 }
                }
            }
            spans += pieces.map { start, end in
                Span(
                    address: start, length: end - start,
                    offset: OwnExecutable.fileOffset(of: start, start: mapping.start, offset: mapping.offset)
                )
            }
        }
        return spans
    }

    /// Unmaps, drops and reads back the executable's ranges of `released`
    /// outside `blocks` (each `blockSize` long: toastd's hot code, mapped
    /// with huge pages); returns their length.
    @discardableResult
    public static func reread(
        _ released: [CodePages.Mapping], of executable: borrowing OwnExecutable, excluding blocks: [UInt] = [], blockSize: UInt = 0
    ) -> Int {
        let spans = spans(of: released, executable: executable.path, excluding: blocks, blockSize: blockSize)
        guard !spans.isEmpty else { return 0 }
        let raw = spans.map { toastd_code_span(address: $0.address, length: Int($0.length), offset: Int64($0.offset)) }
        toastd_code_pages_reread(raw, raw.count, executable.file)
        return spans.reduce(0) { $0 + Int($1.length) }
    }
}
