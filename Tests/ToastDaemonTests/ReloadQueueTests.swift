// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastDaemon

/// Pipelined reloads each parsed the whole file again (issue #38): now one
/// reading runs at a time, and what arrives meanwhile shares the next.
@Suite("Reload coalescing")
struct ReloadQueueTests {
    @Test func requestsDuringAReadingShareOneMore() {
        var queue = ReloadQueue()
        var readings = 0
        if queue.request(.init(connection: 1, ref: "a")) { readings += 1 }
        for id in 2...30 where queue.request(.init(connection: id, ref: nil)) { readings += 1 }
        #expect(readings == 1, "one reading runs while the others wait")
        let first = queue.finished()
        #expect(first.answer.map(\.connection) == [1])
        #expect(first.startAgain)
        readings += 1
        let second = queue.finished()
        #expect(second.answer.map(\.connection) == Array(2...30), "the second reading answers everyone who asked meanwhile, in order")
        #expect(!second.startAgain)
        #expect(readings == 2)
        // Idle again: the next request starts a reading at once.
        let startsAtOnce = queue.request(.init(connection: nil, ref: nil))
        #expect(startsAtOnce)
    }
}
