// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Tells when the configuration file was written: inotify on its directory
/// (an editor's save replaces the file, so the file's own watch would be
/// lost), for writes closed and files moved or linked in under its name.
final class ConfigWatcher {
    let fd: Int32
    private let name: String

    init?(path: String?) {
        guard let path, let slash = path.lastIndex(of: "/") else { return nil }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        name = String(path[path.index(after: slash)...])
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        if inotify_add_watch(fd, directory, mask) < 0 {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    /// Reads the events waiting; whether one was about the file.
    func changed() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var hit = false
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return hit }
            var offset = 0
            while offset + 16 <= count {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { hit = true }
                offset += 16 + length
            }
        }
    }
}

import ToastConfig

/// The `[overlay]` table of a configuration file; no file is the defaults.
enum OverlayStyleFile {
    static func read(_ path: String) -> Result<OverlayStyle, ToastdConfig.Invalid> {
        if access(path, F_OK) != 0, errno == ENOENT { return .success(OverlayStyle()) }
        return ToastdConfig.load(path: path).map(\.overlay)
    }
}
