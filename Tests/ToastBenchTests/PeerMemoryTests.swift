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

    @Test func readsTheProcessItself() {
        let memory = ChildProcess.settledSmaps(of: getpid(), quietReads: 1, limit: 1)
        #expect(memory.rss > 0 && memory.pss > 0 && memory.pss <= memory.rss)
    }
}
