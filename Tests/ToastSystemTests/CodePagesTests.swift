// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

@Suite("Code pages")
struct CodePagesTests {
    /// One mapping of an smaps text.
    static func mapping(
        _ range: String, _ permissions: String, _ path: String, rss: Int, anonymous: Int = 0, swap: Int = 0, dirty: Int = 0
    ) -> String {
        """
        \(range) \(permissions) 00000000 fe:00 1234    \(path)
        Size:               4096 kB
        Rss:                \(rss) kB
        Private_Dirty:      \(dirty) kB
        Anonymous:          \(anonymous) kB
        AnonHugePages:         0 kB
        Swap:               \(swap) kB
        SwapPss:            \(swap) kB
        VmFlags: rd ex mr mw me

        """
    }

    @Test("only read-only private file mappings with every page still the file's are released")
    func choosesMappings() {
        let smaps = [
            // The binary's code: released, dirty page cache or not.
            Self.mapping("1000-5000", "r-xp", "/usr/bin/toastd", rss: 12, dirty: 12),
            // Its RELRO, relocated: private copies, kept.
            Self.mapping("5000-6000", "r--p", "/usr/bin/toastd", rss: 4, anonymous: 4),
            // Writable data with nothing copied yet: kept all the same.
            Self.mapping("6000-7000", "rw-p", "/usr/bin/toastd", rss: 4),
            // A library's read-only data, the file's: released.
            Self.mapping("a000-b000", "r--p", "/usr/lib/libc.so.6 (deleted)", rss: 8),
            // A library's RELRO whose copy was swapped out: kept.
            Self.mapping("b000-c000", "r--p", "/usr/lib/libc.so.6", rss: 0, swap: 4),
            // A RELRO with a copy, then writable data with none: the second
            // mapping's zeros must not clear the first one's copy.
            Self.mapping("c000-d000", "r--p", "/usr/lib/libm.so.6", rss: 4, anonymous: 4),
            Self.mapping("d000-e000", "rw-p", "/usr/lib/libm.so.6", rss: 4),
            // Shared, not file-backed, the kernel's own, nothing resident: kept.
            Self.mapping("e000-f000", "r--s", "/tmp/toastd.sqlite-shm", rss: 4),
            Self.mapping("f000-10000", "r--p", "", rss: 4),
            Self.mapping("10000-11000", "r-xp", "[vdso]", rss: 4),
            Self.mapping("11000-12000", "r-xp", "/usr/lib/libz.so.1", rss: 0),
        ].joined()
        let found = CodePages.releasable(smaps: smaps)
        #expect(found.map(\.mapping) == [
            CodePages.Mapping(start: 0x1000, end: 0x5000, path: "/usr/bin/toastd"),
            CodePages.Mapping(start: 0xa000, end: 0xb000, path: "/usr/lib/libc.so.6 (deleted)"),
        ])
        #expect(found.map(\.resident) == [12 * 1024, 8 * 1024])
    }

    @Test("a path keeps its spaces; lines that are neither a header nor a counted field change nothing")
    func readsOddLines() {
        let smaps = [
            Self.mapping("7f00a000-7f00c000", "r-xp", "/opt/My Tools/lib toast.so", rss: 8),
            // Not headers: a field line, a truncated header, a bad address.
            "VmFlags: rd ex\n",
            "7f00c000-7f00d000 r-xp 00000000\n",
            "7f00d000-zz r-xp 00000000 fe:00 1 /usr/lib/x.so\n",
            // A header with upper-case hexadecimal, and an Rss of no number.
            "7F00E000-7F00F000 r--p 00000000 fe:00 1 /usr/lib/y.so\nRss:  kB\n",
            Self.mapping("7f010000-7f011000", "r--p", "/usr/lib/z.so", rss: 4),
        ].joined()
        let found = CodePages.releasable(smaps: smaps)
        #expect(found.map(\.mapping) == [
            CodePages.Mapping(start: 0x7f00_a000, end: 0x7f00_c000, path: "/opt/My Tools/lib toast.so"),
            CodePages.Mapping(start: 0x7f01_0000, end: 0x7f01_1000, path: "/usr/lib/z.so"),
        ])
        #expect(found.map(\.resident) == [8 * 1024, 4 * 1024])
    }

    @Test("releasing this process's code pages leaves it running and maps fewer file pages")
    func releasesLive() throws {
        let before = try #require(Self.residentFileKilobytes())
        let released = CodePages.release()
        let after = try #require(Self.residentFileKilobytes())
        #expect(released.bytes > 1 << 20)
        #expect(!released.mappings.isEmpty)
        #expect(after < before)
        // Code, the C library through its relocated tables, and the Swift
        // runtime all still work after their pages went.
        var text = ""
        for index in 0..<1_000 { text += String(index, radix: 16) }
        #expect(text.utf8.count == strlen(text))
    }

    static func residentFileKilobytes() -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("RssFile:") {
                return Int(text.split(separator: " ", omittingEmptySubsequences: true)[1])
            }
        }
        return nil
    }
}

extension CodePages {
    /// The mappings of an smaps text given as a `String`.
    static func releasable(smaps: String) -> [(mapping: Mapping, resident: Int)] { releasable(smaps: Array(smaps.utf8)) }
}
