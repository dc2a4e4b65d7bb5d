// SPDX-License-Identifier: Apache-2.0
import ToastSystem
#if canImport(Glibc)
import Glibc
#endif

/// The trust toastd needs in its state directory before it reads a byte
/// from it: the files there decide which toasts a restart shows, so a
/// directory another user could write to (or swap) would let that user read
/// the toasts, inject fake ones, or aim toastd's writes at a file of the
/// user's through a symlink. The rules are the socket directory's
/// (`SocketFile`), and OpenSSH's for its key files:
///
/// - the directory is not a symbolic link, is owned by this uid and is
///   writable by nobody else (no group or other write bit);
/// - every directory above it (symlinks resolved) is owned by this uid or
///   by root, and writable by no one else unless it is sticky (as /tmp is):
///   otherwise its owner could rename the state directory away and put
///   their own in its place;
/// - every file toastd opens there is opened with `O_NOFOLLOW`, must be a
///   regular file with one link, owned by this uid, and is made 0600.
public enum StateDirectory {
    public struct Untrusted: Error, CustomStringConvertible, Equatable {
        public var path: String
        public var reason: String

        public var description: String { "the state directory \(path) cannot be trusted: \(reason)" }
    }

    /// Creates `path` (and its missing parents) 0700 if it is missing, then
    /// checks it as above.
    public static func prepare(_ path: String, uid: uid_t = getuid()) throws(Untrusted) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw Untrusted(path: path, reason: String(cString: strerror(errno))) }
            try makeDirectories(path)
            guard lstat(path, &info) == 0 else { throw Untrusted(path: path, reason: String(cString: strerror(errno))) }
        }
        try check(path, info, uid: uid)
        guard let real = realpath(path, nil) else { throw Untrusted(path: path, reason: String(cString: strerror(errno))) }
        let resolved = String(cString: real)
        free(real)
        var ancestor = parent(of: resolved)
        while true {
            guard lstat(ancestor, &info) == 0 else { throw Untrusted(path: path, reason: "\(ancestor): \(String(cString: strerror(errno)))") }
            let sticky = info.st_mode & S_ISVTX != 0
            if info.st_uid != uid && info.st_uid != 0 {
                throw Untrusted(path: path, reason: "\(ancestor) above it belongs to uid \(info.st_uid), who could replace it")
            }
            if info.st_mode & 0o022 != 0 && !sticky {
                throw Untrusted(path: path, reason: "\(ancestor) above it is writable by other users and not sticky")
            }
            if ancestor == "/" { break }
            ancestor = parent(of: ancestor)
        }
    }

    /// The rules for the directory itself, on its `lstat`.
    static func check(_ path: String, _ info: stat, uid: uid_t) throws(Untrusted) {
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK { throw Untrusted(path: path, reason: "it is a symbolic link; give the real directory (--state-dir)") }
        guard type == S_IFDIR else { throw Untrusted(path: path, reason: "it is not a directory") }
        if info.st_uid != uid {
            throw Untrusted(path: path, reason: "it belongs to uid \(info.st_uid), not to you (uid \(uid)); remove it or use --state-dir")
        }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw Untrusted(path: path, reason: "its mode is \(mode), writable by other users; run `chmod 700 \(path)`")
        }
    }

    /// Opens a file of the state directory: never through a symlink, and
    /// only if it is this uid's own regular file with one name. A file
    /// that passes is made 0600 (an older toastd, or a copy, may have left
    /// it readable). Returns the descriptor, or throws with the reason.
    public static func openFile(_ path: String, flags: Int32, uid: uid_t = getuid()) throws(Untrusted) -> Int32 {
        let descriptor = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw Untrusted(path: path, reason: reason)
        }
        var info = stat()
        do throws(Untrusted) {
            guard fstat(descriptor, &info) == 0 else { throw Untrusted(path: path, reason: String(cString: strerror(errno))) }
            try checkFile(path, info, uid: uid)
        } catch {
            close(descriptor)
            throw error
        }
        if info.st_mode & 0o077 != 0 { fchmod(descriptor, 0o600) }
        return descriptor
    }

    /// `openFile`'s rules for a file toastd does not open itself (SQLite's
    /// database and its WAL): checked with `lstat` before SQLite opens it,
    /// in a directory no one else can write to. A missing file is fine.
    public static func checkExistingFile(_ path: String, uid: uid_t = getuid()) throws(Untrusted) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw Untrusted(path: path, reason: String(cString: strerror(errno)))
        }
        if info.st_mode & S_IFMT == S_IFLNK { throw Untrusted(path: path, reason: "it is a symbolic link") }
        try checkFile(path, info, uid: uid)
        if info.st_mode & 0o077 != 0 { chmod(path, 0o600) }
    }

    /// A small file of the state directory, read whole under `openFile`'s
    /// rules; nil when there is none. A file over `limit` bytes is refused.
    public static func readFile(_ path: String, limit: Int, uid: uid_t = getuid()) throws(Untrusted) -> [UInt8]? {
        var info = stat()
        if lstat(path, &info) != 0 && errno == ENOENT { return nil }
        let descriptor = try openFile(path, flags: O_RDONLY | O_NONBLOCK, uid: uid)
        defer { close(descriptor) }
        let bytes = ProcFile.bytes(of: descriptor, limit: limit)
        guard bytes.count <= limit else { throw Untrusted(path: path, reason: "it is over \(limit) bytes") }
        return bytes
    }

    /// Replaces a small file of the state directory with `bytes`: written
    /// to a file beside it (made new, 0600), then renamed over it, so that
    /// a reader finds the old file or the new one, never a part.
    public static func replaceFile(_ path: String, with bytes: [UInt8], uid: uid_t = getuid()) throws(Untrusted) {
        let written = path + ".new"
        unlink(written)
        let descriptor = try openFile(written, flags: O_WRONLY | O_CREAT | O_EXCL, uid: uid)
        let failure = bytes.withUnsafeBytes { StepJournal.writeAll(descriptor, $0) }
        close(descriptor)
        guard failure == nil, rename(written, path) == 0 else {
            let reason = String(cString: strerror(failure ?? errno))
            unlink(written)
            throw Untrusted(path: path, reason: "cannot write it: \(reason)")
        }
    }

    private static func checkFile(_ path: String, _ info: stat, uid: uid_t) throws(Untrusted) {
        guard info.st_mode & S_IFMT == S_IFREG else { throw Untrusted(path: path, reason: "it is not a regular file") }
        if info.st_uid != uid { throw Untrusted(path: path, reason: "it belongs to uid \(info.st_uid), not to you (uid \(uid))") }
        if info.st_nlink > 1 { throw Untrusted(path: path, reason: "it has \(info.st_nlink) hard links") }
    }

    private static func makeDirectories(_ path: String) throws(Untrusted) {
        let above = parent(of: path)
        var info = stat()
        if above != path && lstat(above, &info) != 0 { try makeDirectories(above) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw Untrusted(path: path, reason: "cannot create it: \(String(cString: strerror(errno)))")
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
