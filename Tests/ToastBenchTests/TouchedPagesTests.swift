// SPDX-License-Identifier: Apache-2.0
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import ToastBench

/// What the start-up scenario counts of a request's pages.
@Suite("Pages a request touches")
struct TouchedPagesTests {
    static let smaps = """
        55a000000000-55a000100000 r--p 00000000 fd:01 1234                       /opt/toastd/bin/toastd
        Size:               1024 kB
        Referenced:           12 kB
        55a000100000-55a000900000 r-xp 00100000 fd:01 1234                       /opt/toastd/bin/toastd
        Referenced:          676 kB
        55a000900000-55a000980000 rw-p 00900000 fd:01 1234                       /opt/toastd/bin/toastd
        Referenced:          224 kB
        55a001000000-55a001100000 rw-p 00000000 00:00 0                          [heap]
        Referenced:           60 kB
        7f0000000000-7f0000200000 r-xp 00000000 fd:01 99                         /usr/lib/x86_64-linux-gnu/libc.so.6
        Referenced:         1028 kB
        7f0000300000-7f0000400000 rw-p 00000000 00:00 0
        Anonymous:           248 kB
        Referenced:          248 kB
        7f0000500000-7f0000600000 r--s 00000000 fd:01 77                         /opt/toastd/bin/toastctl
        Referenced:           32 kB
        7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
        Referenced:            8 kB
        7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0                          [vdso]
        Referenced:            4 kB
        """

    @Test func theServersOwnMappingsAreCountedByKind() {
        let pages = TouchedPages.referenced(smaps: Self.smaps, executable: "/opt/toastd/bin/toastd")
        #expect(pages.code == 676)
        #expect(pages.data == 12 + 224, "read-only data and data")
        #expect(pages.anonymous == 60 + 248 + 8, "heap, anonymous, stack; not the vdso")
        #expect(pages.total == 676 + 236 + 316)
    }

    /// Libraries and other files' pages are referenced by every process
    /// that runs them, the client too: not counted.
    @Test func sharedFilesAreNotCounted() {
        let pages = TouchedPages.referenced(smaps: Self.smaps, executable: "/elsewhere/toastd")
        #expect(pages.code == 0)
        #expect(pages.data == 0)
        #expect(pages.anonymous == 316)
    }

    /// A real process, this one: touching a fresh buffer's pages after the
    /// bits are cleared shows in its anonymous count.
    @Test func aProcessTouchingPagesIsSeen() throws {
        let size = 64 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4_096)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        var sum = 0
        let pages = try #require(
            TouchedPages.of(getpid()) {
                for offset in stride(from: 0, to: size, by: 4_096) { sum &+= Int(buffer.load(fromByteOffset: offset, as: UInt8.self)) }
            })
        #expect(sum == size / 4_096)
        #expect(pages.anonymous >= 64 << 10, "\(pages.anonymous) KiB")
    }
}
