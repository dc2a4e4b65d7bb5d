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

    @Test func theSiblingIsLookedForBesideThisProcesssExecutable() throws {
        let executable = try #require(ClientPages.executablePath())
        // The executable's own path, as the kernel has it: a file that exists and runs.
        #expect(executable.hasPrefix("/") && access(executable, X_OK) == 0, "\(executable)")
        #expect(ClientPages.holdSibling(named: "no-such-toastctl-\(getpid())") == nil)
        // toastd's own wiring (the sibling of the real toastd) is in the integration tests.
    }
}
