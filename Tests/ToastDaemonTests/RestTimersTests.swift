// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastDaemon

@Suite("Rest timers: armed by activity, silent at rest")
struct RestTimersTests {
    @Test func nothingIsArmedWithoutASteps() {
        var timers = RestTimers(status: "0 shown", now: 0)
        // No step: a stray timer sends nothing, and nothing is armed again.
        #expect(timers.statusTimerFired(now: 60_000, status: "0 shown").isEmpty)
        #expect(timers.stepEnded(now: 60_000) == [.armStatus(at: 60_000)])
    }

    @Test func statusGoesOutWhenItChangedAtMostOnceASecond() {
        var timers = RestTimers(status: "0 shown", now: 0)
        // The first step, 5 s after the last STATUS=: at once.
        #expect(timers.stepEnded(now: 5_000) == [.armStatus(at: 5_000)])
        #expect(timers.statusTimerFired(now: 5_000, status: "1 shown") == [.sendStatus("1 shown")])
        // A burst of steps: one timer, a second after the last line.
        #expect(timers.stepEnded(now: 5_100) == [.armStatus(at: 6_000)])
        #expect(timers.stepEnded(now: 5_200).isEmpty, "already armed")
        #expect(timers.statusTimerFired(now: 6_000, status: "3 shown") == [.sendStatus("3 shown")])
        // Unchanged: nothing sent.
        #expect(timers.stepEnded(now: 9_000) == [.armStatus(at: 9_000)])
        #expect(timers.statusTimerFired(now: 9_000, status: "3 shown").isEmpty)
        // A line sent with READY=1 counts as sent.
        timers.statusSent("4 shown", now: 9_500)
        #expect(timers.stepEnded(now: 9_600) == [.armStatus(at: 10_500)])
        #expect(timers.statusTimerFired(now: 10_500, status: "4 shown").isEmpty)
    }
}
