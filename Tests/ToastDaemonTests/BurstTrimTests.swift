// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastDaemon

@Suite("Trimming the heap after a burst")
struct BurstTrimTests {
    @Test func theTimerIsArmedOnceTheThresholdIsWritten() {
        var trim = BurstTrim(thresholdBytes: 1_000)
        let below = trim.wrote(600, steps: 1)
        let crossed = trim.wrote(600, steps: 2)
        let again = trim.wrote(5_000, steps: 3)
        #expect(!below)
        #expect(crossed, "1,200 bytes: armed")
        #expect(!again, "already armed")
    }

    /// While steps keep coming the burst goes on; the first quiet period ends it.
    @Test func itTrimsOnlyAfterAQuietPeriod() {
        var trim = BurstTrim(thresholdBytes: 1_000)
        let armed = trim.wrote(1_000, steps: 5)
        let answers = [trim.timerFired(steps: 9), trim.timerFired(steps: 12), trim.timerFired(steps: 12)]
        #expect(armed)
        #expect(answers == [.rearm, .rearm, .trim])
    }

    /// After a trim the count starts again: an idle toastd arms nothing,
    /// and the next burst must write the threshold anew.
    @Test func aTrimStartsTheCountAgain() {
        var trim = BurstTrim(thresholdBytes: 1_000)
        let first = trim.wrote(2_000, steps: 1)
        let fired = trim.timerFired(steps: 1)
        let short = trim.wrote(999, steps: 2)
        let crossed = trim.wrote(1, steps: 3)
        #expect(first && fired == .trim)
        #expect(!short && crossed)
    }
}
