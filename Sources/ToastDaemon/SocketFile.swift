// SPDX-License-Identifier: Apache-2.0
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// Preparing the socket path before binding: a private directory, and no
/// surprise about what is already at the path.
public enum SocketFile {
    public enum Problem: Error, CustomStringConvertible {
        case alreadyRunning(String)
        case notASocket(String)
        case directory(String, String)

        public var description: String {
            switch self {
            case .alreadyRunning(let path):
                "toastd is already running on \(path) (a daemon there accepted a connection); stop it first or use --socket"
            case .notASocket(let path):
                "\(path) exists and is not a socket; refusing to replace it"
            case .directory(let path, let why):
                "cannot use the directory \(path): \(why)"
            }
        }
    }

    /// Makes sure the parent directory exists and is safe, refuses a live
    /// daemon, and removes a stale socket left by a dead one.
    ///
    /// A directory another user controls would let that user unlink the
    /// socket and put their own in its place, so every toast would go to
    /// their server (as tmux guards /tmp/tmux-UID). The directory must not be
    /// a symlink (checked with lstat), and must be owned by this uid (or be a
    /// root-owned sticky directory such as /tmp, for an explicit path).
    /// The /tmp/toastd-UID fallback must moreover have no group or other
    /// permission bits at all; toastd creates it 0700.
    public static func prepare(_ path: String) throws(Problem) {
        let directory = parent(of: path)
        let privateDirectory = directory == SocketLocation.fallbackDirectory(uid: getuid())
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .directory(directory, String(cString: strerror(errno))) }
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw .directory(directory, String(cString: strerror(errno)))
            }
            guard lstat(directory, &info) == 0 else { throw .directory(directory, String(cString: strerror(errno))) }
        }
        try checkDirectory(directory, info, privateDirectory: privateDirectory, uid: getuid())
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        if isAccepting(path) { throw .alreadyRunning(path) }
        unlink(path)
    }

    /// The rules of `prepare`, on the directory's lstat.
    static func checkDirectory(_ directory: String, _ info: stat, privateDirectory: Bool, uid: uid_t) throws(Problem) {
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            throw .directory(directory, "it is a symbolic link; remove it, or use a directory of your own (--socket)")
        }
        guard type == S_IFDIR else { throw .directory(directory, "it is not a directory") }
        let sticky = info.st_mode & S_ISVTX != 0
        if info.st_uid != uid && !(info.st_uid == 0 && sticky && !privateDirectory) {
            throw .directory(
                directory,
                "it belongs to uid \(info.st_uid), not to you (uid \(uid)); whoever owns it could replace toastd's socket. "
                    + "Remove it, set XDG_RUNTIME_DIR, or use --socket in a directory of your own"
            )
        }
        if privateDirectory && info.st_mode & 0o077 != 0 {
            throw .directory(
                directory,
                "its mode is \(String(info.st_mode & 0o7777, radix: 8)), open to other users; run `chmod 700 \(directory)` or remove it"
            )
        }
        if !privateDirectory && info.st_mode & 0o002 != 0 && !sticky {
            throw .directory(directory, "it is writable by others and not sticky")
        }
    }

    /// Whether something accepts connections on the socket at `path`.
    public static func isAccepting(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Whether a connection waits on the listening socket `fd` to be
    /// accepted: under socket activation, the client whose connection
    /// started toastd.
    static func hasPendingConnection(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
