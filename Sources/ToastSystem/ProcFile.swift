// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A file of /proc read whole: its size is unknown until it is read.
public enum ProcFile {
    public static func read(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file's bytes, for a reader that need not build a String of them
    /// (an smaps text is tens of KiB, read at every start).
    public static func bytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return bytes(of: fd, limit: .max)
    }

    /// Where a link of /proc points (`/proc/PID/exe`: a process's
    /// executable); nil where it cannot be read.
    public static func link(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count - 1) }
        }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// What an open file has left to read, to its end or to more than
    /// `limit` bytes (then `limit + 1` of them: the caller can tell the
    /// file was too long).
    public static func bytes(of fd: Int32, limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            let room = limit - bytes.count
            bytes += chunk[..<(count > room ? room + 1 : count)]
        }
        return bytes
    }

    /// Names the calling thread (`/proc/self/comm`, what `ps` shows and what
    /// toastd reads for a client's default source): at most 15 bytes are kept.
    public static func nameThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = Array(name.utf8.prefix(15)).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// The names of a /proc directory's numbered entries (the processes of
    /// /proc, a process's threads in `task`, its descriptors in `fd`); nil
    /// when the directory cannot be read.
    public static func numberedEntries(_ directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.isEmpty, name.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { names.append(name) }
        }
        return names
    }
}
