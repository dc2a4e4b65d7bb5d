// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A directory made for this process alone (`mkdtemp`), removed with
/// everything in it: what a benchmark's toastd or a test's fixture writes
/// (a state directory of 100,000 toasts is tens of MiB) goes with it.
///
/// The removal walks the tree by file descriptors (`openat` with
/// `O_NOFOLLOW`, `unlinkat`): a symbolic link inside is removed, never
/// followed, and a directory renamed or replaced by a link while it runs
/// cannot send it outside the tree.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Makes `parent/prefix-XXXXXX`, mode 0700.
    public init(prefix: String, in parent: String = "/tmp") throws(SystemCallError) {
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemCallError("mkdtemp", errno) }
        path = String(cString: made)
    }

    /// Removes the directory and everything in it; false if something was
    /// left (a file another process still creates, or no permission).
    @discardableResult
    public func remove() -> Bool {
        Self.removeTree(path)
    }

    /// Removes `path` and, if it is a directory (not a link to one),
    /// everything in it. True if nothing is left.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        if unlink(path) == 0 || errno == ENOENT { return true }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        let emptied = removeEntries(of: fd, depth: 0)
        return emptied && (rmdir(path) == 0 || errno == ENOENT)
    }

    /// How deep a tree `removeTree` follows: far past any tree toastd, its
    /// tests or its benchmarks make, and a bound on the descriptors it holds.
    static let maxDepth = 64

    /// Removes what the directory open as `fd` holds, and closes `fd`. A
    /// directory whose owner took away its own write permission gets it
    /// back first: it is about to go.
    private static func removeEntries(of fd: Int32, depth: Int) -> Bool {
        _ = fchmod(fd, S_IRWXU)
        guard let stream = fdopendir(fd) else {
            close(fd)
            return false
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        var emptied = true
        for name in names {
            if unlinkat(fd, name, 0) == 0 || errno == ENOENT { continue }
            guard errno == EISDIR, depth < maxDepth else {
                emptied = false
                continue
            }
            let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0, removeEntries(of: child, depth: depth + 1) else {
                emptied = false
                continue
            }
            if unlinkat(fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT { emptied = false }
        }
        return emptied
    }
}

/// A system call that failed, with its errno.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let code: Int32

    public init(_ call: String, _ code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}
