// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastSystem

@testable import ToastDaemon

#if canImport(Glibc)
import Glibc
#endif

@Suite("toastctl's pages held")
struct ClientPagesTests {
    /// Writes `count` bytes to a new file in `directory`; its path.
    static func file(_ directory: TemporaryDirectory, _ name: String, bytes count: Int) -> String {
        let path = directory.path + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        precondition(fd >= 0)
        let bytes = [UInt8](repeating: 0x7f, count: count)
        precondition(write(fd, bytes, count) == count)
        close(fd)
        return path
    }

    /// The line of /proc/self/maps that maps `path`.
    static func mapping(of path: String) -> Substring? {
        ProcFile.read("/proc/self/maps")?.split(separator: "\n").first { $0.hasSuffix(" " + path) }
    }

    @Test func aRegularFileIsMappedSharedReadOnlyWithEveryPageResident() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-client-pages")
        defer { directory.remove() }
        let path = Self.file(directory, "toastctl", bytes: 36_000)
        let held = try #require(ClientPages.hold(path))
        #expect(held.path == path && held.length == 36_000)
        let line = try #require(Self.mapping(of: path), "not in /proc/self/maps")
        // Read-only and shared: CodePages lets go only of private mappings.
        #expect(line.split(separator: " ")[1] == "r--s", "\(line)")
        let pages = (held.length + 4095) / 4096
        var resident = [UInt8](repeating: 0, count: pages)
        #expect(mincore(UnsafeMutableRawPointer(bitPattern: held.address), held.length, &resident) == 0)
        #expect(resident.allSatisfy { $0 & 1 == 1 }, "\(resident)")
        // Held: the mapping outlives the call and the file's descriptor.
        #expect(Self.mapping(of: path) != nil)
        #expect(CodePages.releasable(smaps: ProcFile.bytes("/proc/self/smaps") ?? []).allSatisfy { $0.mapping.path != path })
    }

    @Test func whatIsNotASmallRegularFileIsNotHeld() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-client-pages")
        defer { directory.remove() }
        #expect(ClientPages.hold(directory.path + "/missing") == nil)
        #expect(ClientPages.hold(directory.path) == nil)
        #expect(ClientPages.hold(Self.file(directory, "empty", bytes: 0)) == nil)
        let large = Self.file(directory, "large", bytes: 8193)
        #expect(ClientPages.hold(large, limit: 8192) == nil)
        #expect(ClientPages.hold(large, limit: 8193) != nil)
        // A FIFO in toastctl's place neither blocks the open nor is held.
        let fifo = directory.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(ClientPages.hold(fifo) == nil)
        #expect(Self.mapping(of: directory.path + "/empty") == nil && Self.mapping(of: fifo) == nil)
    }

    /// The inode /proc/self/maps gives the mapping of `path`, and whether
    /// that mapping's file was deleted or replaced.
    static func mappedInode(of path: String) -> (inode: UInt64, deleted: Bool)? {
        guard let line = ProcFile.read("/proc/self/maps")?.split(separator: "\n").first(where: {
            $0.hasSuffix(" " + path) || $0.hasSuffix(" " + path + " (deleted)")
        }) else { return nil }
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        return UInt64(fields[4]).map { ($0, line.hasSuffix("(deleted)")) }
    }

    static func inode(of path: String) -> UInt64? {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    /// An upgrade replaces toastctl by renaming a new file over it: the old
    /// file's pages are let go of and the new one's held; while the path
    /// names the file held, nothing changes.
    @Test func aReplacedFileIsLetGoOfAndTheNewOneHeld() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-client-pages")
        defer { directory.remove() }
        let path = Self.file(directory, "toastctl", bytes: 36_000)
        let held = try #require(ClientPages.hold(path))
        #expect(ClientPages.renewed(held, at: path) == held, "the same file was held again")
        #expect(Self.mappedInode(of: path)?.inode == Self.inode(of: path))

        let next = Self.file(directory, "toastctl.new", bytes: 20_000)
        #expect(rename(next, path) == 0)
        let renewed = try #require(ClientPages.renewed(held, at: path))
        #expect(renewed != held && renewed.length == 20_000)
        let mapped = try #require(Self.mappedInode(of: path), "the new file is not mapped")
        #expect(mapped.inode == Self.inode(of: path) && !mapped.deleted, "\(mapped)")
        // The old file's mapping is gone: only one line names the path.
        let lines = ProcFile.read("/proc/self/maps")?.split(separator: "\n").filter { $0.contains(path) } ?? []
        #expect(lines.count == 1, "\(lines)")

        // Gone, then back: nothing held meanwhile, and the file held once it is there.
        #expect(unlink(path) == 0)
        #expect(ClientPages.renewed(renewed, at: path) == nil)
        #expect(Self.mappedInode(of: path) == nil)
        _ = Self.file(directory, "toastctl", bytes: 1_000)
        #expect(ClientPages.renewed(nil, at: path)?.length == 1_000)
    }

    @Test func theSiblingIsLookedForBesideThisProcesssExecutable() throws {
        guard let executable = OwnExecutable() else {
            Issue.record("/proc/self/exe could not be read and opened")
            return
        }
        // The executable's own path, as the kernel has it: a file that exists and runs.
        #expect(executable.path.hasPrefix("/") && access(executable.path, X_OK) == 0, "\(executable.path)")
        // What was opened is that file.
        var opened = stat()
        var named = stat()
        #expect(fstat(executable.file, &opened) == 0 && stat(executable.path, &named) == 0)
        #expect(opened.st_dev == named.st_dev && opened.st_ino == named.st_ino)
        let directory = executable.path[...executable.path.lastIndex(of: "/")!]
        #expect(ClientPages.siblingPath(of: executable.path, named: "toastctl") == directory + "toastctl")
        #expect(ClientPages.siblingPath(of: "toastd") == nil)
        let missing = try #require(ClientPages.siblingPath(of: executable.path, named: "no-such-toastctl-\(getpid())"))
        #expect(ClientPages.hold(missing) == nil)
        // toastd's own wiring (the sibling of the real toastd) is in the integration tests.
    }
}
