// SPDX-License-Identifier: Apache-2.0
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
public enum ClientPages {
    /// The largest file held: the front is 36 KB; what is larger is not it.
    public static let limit = 1 << 20

    /// A file's pages, mapped.
    public struct Held: Sendable {
        public let path: String
        public let length: Int
        let address: UInt
    }

    /// The `toastctl` in the directory of this process's executable, held;
    /// nil where there is none or it cannot be held.
    public static func holdSibling(named name: String = "toastctl") -> Held? {
        guard let executable = executablePath(), let slash = executable.lastIndex(of: "/") else { return nil }
        return hold(String(executable[...slash]) + name)
    }

    /// Maps `path` read-only and shared, with its pages faulted in (read
    /// from the disk if they are not in the page cache), and never unmaps
    /// it; nil if it is not a regular file of 1 byte to `limit`, or the
    /// system refuses. `O_NONBLOCK`: a FIFO in its place does not hold up
    /// the open.
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
        return Held(path: path, length: length, address: UInt(bitPattern: address))
    }

    /// /proc/self/exe: where this process's executable is (a link's target).
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
