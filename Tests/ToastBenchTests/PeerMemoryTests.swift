// SPDX-License-Identifier: Apache-2.0
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import ToastBench

/// The memory section's dunst and mako rows, read from bench/peers-memory.sh.
@Suite("The peers' memory rows")
struct PeerMemoryTests {
    typealias Row = MemoryBenchmark.PeerRow

    @Test func readsMeasuredRowsAndOnesThatCouldNotBeMeasured() {
        let text = """
            dunst idle\t8022\t1576\t10388\t
            dunst, 100,000 queued\t30000\t20000\t40000\t1,500 B anonymous a notification; holds 12,000 of 100,000: the 300 s ran out
            mako, 100,000 queued\t\t\t\texited

            """
        #expect(MemoryBenchmark.peerRows(text) == [
            Row(label: "dunst idle", memory: (8022, 1576, 10388), note: ""),
            Row(label: "dunst, 100,000 queued", memory: (30000, 20000, 40000),
                note: "1,500 B anonymous a notification; holds 12,000 of 100,000: the 300 s ran out"),
            Row(label: "mako, 100,000 queued", memory: nil, note: "exited"),
        ])
    }

    @Test func skipsLinesOfAnyOtherShape() {
        let text = """
            notify-flood: org.freedesktop.DBus.Error.NoReply: Method call timed out
            mako idle\t3055\t944\t
            mako idle\t3055\tmany\t5000\t
            \t3055\t944\t5000\t
            mako idle\t3055\t944\t5000\t\textra
            mako idle\t3055\t944\t5000\tkept
            """
        #expect(MemoryBenchmark.peerRows(text) == [Row(label: "mako idle", memory: (3055, 944, 5000), note: "kept")])
    }
}

/// The memory section reads a process once it has settled.
@Suite("A settled process")
struct SettledProcessTests {
    @Test func settlesOnlyWhenTheLastReadingsAgree() {
        #expect(!ChildProcess.hasSettled([], quietReads: 3))
        #expect(!ChildProcess.hasSettled([7, 7], quietReads: 3))
        #expect(!ChildProcess.hasSettled([7, 7, 8], quietReads: 3))
        #expect(!ChildProcess.hasSettled([7, 8, 8], quietReads: 3))
        #expect(ChildProcess.hasSettled([9, 8, 8, 8], quietReads: 3))
    }

    @Test func namesTheMappingsWithTheMostPSS() {
        let smaps = """
            55d0a4200000-55d0a4600000 r-xp 00400000 fe:01 1234                       /usr/bin/toast d
            Size:               4096 kB
            Rss:                4096 kB
            Pss:                1024 kB
            FilePmdMapped:      4096 kB
            55d0a4600000-55d0a4700000 r--p 00800000 fe:01 1234                       /usr/bin/toast d
            Rss:                 120 kB
            Pss:                 120 kB
            FilePmdMapped:         0 kB
            7f0000000000-7f0000100000 rw-p 00000000 00:00 0 
            Rss:                1800 kB
            Pss:                1800 kB
            7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
            Rss:                  16 kB
            Pss:                  16 kB

            """
        let mappings = ChildProcess.mappings(smaps: smaps)
        #expect(mappings.count == 4)
        #expect(mappings.reduce(0) { $0 + $1.hugeFile } == 4096)
        #expect(ChildProcess.largest(mappings, count: 3) == [
            // By PSS: the code, shared by four, after the anonymous memory.
            .init(path: "", permissions: "rw-p", rss: 1800, pss: 1800, hugeFile: 0),
            .init(path: "/usr/bin/toast d", permissions: "r-xp", rss: 4096, pss: 1024, hugeFile: 4096),
            .init(path: "/usr/bin/toast d", permissions: "r--p", rss: 120, pss: 120, hugeFile: 0),
        ])
        #expect(ChildProcess.mappings(smaps: "").isEmpty)
    }

    @Test func readsTheProcessItself() {
        let memory = ChildProcess.settledSmaps(of: getpid(), quietReads: 1, limit: 1)
        #expect(memory.rss > 0 && memory.pss > 0 && memory.pss <= memory.rss)
    }
}
