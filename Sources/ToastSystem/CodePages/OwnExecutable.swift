// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// This process's executable, opened once for the thread that settles
/// start-up's code: `CodeFolios` (and toastd's `HugeCodePages`) advise the
/// page cache through `file`, `LargeFolios` faults it in a mapping of its
/// own, and they match `/proc/self/maps` lines against `path`; toastd's
/// `ClientPages` finds toastctl beside it.
///
/// `path` is what `/proc/self/exe` links to, and `file` is that link
/// opened: the inode this process runs, even when an upgrade has since put
/// another file at `path` (whose maps lines then read `path (deleted)`).
public struct OwnExecutable: ~Copyable {
    public let path: String
    public let file: Int32

    /// Nil when /proc is not mounted or the executable cannot be opened.
    public init?() {
        guard let path = ProcFile.link("/proc/self/exe") else { return nil }
        let file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        self.path = path
        self.file = file
    }

    deinit { close(file) }

    /// Where in the file the byte mapped at `address` is, in a mapping of
    /// it from `start` that begins at file offset `offset`.
    public static func fileOffset(of address: UInt, start: UInt, offset: UInt) -> UInt {
        offset + (address - start)
    }
}
