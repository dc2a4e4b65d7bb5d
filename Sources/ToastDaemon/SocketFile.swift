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

    /// Makes sure the parent directory exists (created 0700 if missing),
    /// refuses a live daemon, and removes a stale socket left by a dead one.
    public static func prepare(_ path: String) throws(Problem) {
        let directory = parent(of: path)
        var info = stat()
        if stat(directory, &info) != 0 {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw .directory(directory, String(cString: strerror(errno)))
            }
        } else if info.st_uid != getuid() && info.st_mode & S_ISVTX == 0 && info.st_mode & 0o002 != 0 {
            throw .directory(directory, "it is writable by others and not sticky")
        }
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        if isAccepting(path) { throw .alreadyRunning(path) }
        unlink(path)
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

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
