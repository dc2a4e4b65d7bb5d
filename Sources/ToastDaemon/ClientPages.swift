// SPDX-License-Identifier: Apache-2.0
import ToastSystem
#if canImport(Glibc)
import Glibc
#endif

/// toastctl's pages, held in memory while toastd runs.
///
/// A session's first `toastctl add` after an idle spell waited on the disk
/// for toastctl itself: the kernel lets go first of page-cache pages that
/// no process maps (reclaim under memory pressure; proactive reclaim such
/// as the DAMON scheme of the machine the benchmarks run on takes nothing
/// else), and toastctl's pages are mapped only while it runs. So toastd
/// maps the `toastctl` beside its own executable (in an install,
/// /usr/bin/toastctl beside /usr/bin/toastd: the 36 KB front), read-only
/// and shared, every page faulted in, and keeps the mapping: its pages are
/// then mapped pages, which that reclaim leaves alone. It costs toastd the
/// front's size in PSS and a session's first add no disk read
/// (docs/BENCHMARKS.md, "toastctl held"). The file is only mapped, never
/// read or run: a file that is not a regular file, or larger than `limit`
/// (the full toastctl, a debug build), is not held. A shared mapping is one
/// `CodePages` does not let go of.
///
/// A package upgrade replaces toastctl while toastd runs: the mapping then
/// holds the old file, which nothing runs any more. `renewed` lets it go
/// and holds the new one; toastd calls it after a step, at most once a
/// second (`ServiceManagerDuties`), so an idle toastd does not look.
public enum ClientPages {
    /// The largest file held: the front is 36 KB; what is larger is not it.
    public static let limit = 1 << 20

    /// A file's pages, mapped.
    public struct Held: Sendable, Equatable {
        public let path: String
        public let length: Int
        let address: UInt
        /// The file mapped: its device and inode.
        let device: UInt64
        let inode: UInt64
    }

    /// Where the `toastctl` beside the executable at `executable` would be.
    public static func siblingPath(of executable: String, named name: String = "toastctl") -> String? {
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + name
    }

    /// What to hold at `path` now: `held` while the path still names the
    /// file it maps; otherwise the file there now, held (nil when there is
    /// none that can be), with `held`'s mapping let go of.
    public static func renewed(_ held: Held?, at path: String, limit: Int = limit) -> Held? {
        var status = stat()
        if let held, stat(path, &status) == 0, UInt64(status.st_dev) == held.device, UInt64(status.st_ino) == held.inode {
            return held
        }
        let next = hold(path, limit: limit)
        if let held { munmap(UnsafeMutableRawPointer(bitPattern: held.address), held.length) }
        return next
    }

    /// Maps `path` read-only and shared, with its pages faulted in (read
    /// from the disk if they are not in the page cache), and keeps it mapped
    /// (until `renewed` finds it replaced); nil if it is not a regular file
    /// of 1 byte to `limit`, or the system refuses. `O_NONBLOCK`: a FIFO in
    /// its place does not hold up the open.
    public static func hold(_ path: String, limit: Int = limit) -> Held? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0, status.st_size <= limit else {
            return nil
        }
        let length = Int(status.st_size)
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0), address != MAP_FAILED else {
            return nil
        }
        return Held(
            path: path, length: length, address: UInt(bitPattern: address),
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino)
        )
    }
}
