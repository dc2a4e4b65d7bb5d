// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("Scheduler: cancellation and invalidation per source")
struct SchedulerSourceTests {
    /// One slot, occupied by an indefinite toast from someone else, so that
    /// everything the test adds waits in the queue.
    func blockedHarness() -> SchedulerHarness {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("blocker", duration: .indefinite, source: "other"))
        _ = h.takeEvents()
        return h
    }

    @Test func alwaysCancelsTheSourcesOlderWaitingToastsOnANewOne() {
        var h = blockedHarness()
        h.add(toast("volume 10", source: "slider", cancellation: .always))
        h.add(toast("volume 20", source: "slider", cancellation: .always))
        h.add(toast("unrelated", source: "mail", cancellation: .always))
        h.add(toast("volume 30", source: "slider", cancellation: .always))
        #expect(
            h.takeEvents() == [
                "queued 2", "cancelled 2 superseded", "queued 3", "queued 4", "cancelled 3 superseded", "queued 5",
            ]
        )
        #expect(h.queued == [4, 5])
    }

    @Test func alwaysDoesNotTouchShownToasts() {
        var h = SchedulerHarness()
        h.add(toast("volume 10", source: "slider", cancellation: .always))
        h.add(toast("volume 20", source: "slider", cancellation: .always))
        #expect(h.takeEvents() == ["presented 1", "presented 2"])
    }

    @Test func aDedupeIsNotANewToastForTheSourcePolicies() {
        var h = blockedHarness()
        h.add(toast("a", reuseID: "r", source: "s", cancellation: .always))
        h.add(toast("b", reuseID: "r", source: "s", cancellation: .always))
        #expect(h.takeEvents() == ["queued 2", "updated 2"])
    }

    @Test(arguments: [CancellationPolicy.never, .presentation, .always])
    func endingASourceCancelsPerPolicy(policy: CancellationPolicy) {
        var h = blockedHarness()
        h.add(toast("waiting", source: "sheet", cancellation: policy))
        let transition = h.send(.endSource("sheet"))
        if policy == .never {
            #expect(transition.reply == .success(.sourceEnded(cancelled: 0, dismissed: 0)))
            #expect(h.queued == [2])
        } else {
            #expect(transition.reply == .success(.sourceEnded(cancelled: 1, dismissed: 0)))
            #expect(h.takeEvents() == ["queued 2", "cancelled 2 sourceEnded"])
        }
    }

    @Test func contextChangedDismissesTheShownToastOnTheSourcesNextToast() {
        var h = SchedulerHarness()
        h.add(toast("volume 10", source: "slider", invalidation: .contextChanged))
        h.add(toast("other", source: "mail", invalidation: .contextChanged))
        h.add(toast("volume 20", source: "slider", invalidation: .contextChanged))
        #expect(h.takeEvents() == ["presented 1", "presented 2", "dismissed 1 invalidated", "presented 3"])
    }

    /// The policies follow a toast's state as it changes: a waiting
    /// `always` toast that is presented leaves the set the next toast
    /// cancels, and a waiting `contextChanged` toast that is presented joins
    /// the set it dismisses.
    @Test func thePoliciesFollowAToastFromTheQueueToItsSlot() {
        var h = blockedHarness()
        let always = h.add(toast("volume 10", source: "slider", cancellation: .always))
        let context = h.add(toast("tab 1", source: "panel", invalidation: .contextChanged))
        _ = h.send(.remove(.id(1)))  // the blocker: "volume 10" takes its slot
        #expect(h.shown == [always])
        _ = h.takeEvents()
        // Shown now: the source's next toast leaves it be.
        let next = h.add(toast("volume 20", source: "slider", cancellation: .always))
        #expect(h.takeEvents() == ["queued \(next)"])
        _ = h.send(.remove(.id(always)))  // "tab 1" takes the slot
        #expect(h.shown == [context])
        _ = h.takeEvents()
        // Shown now: the source's next toast dismisses it.
        h.add(toast("tab 2", source: "panel"))
        #expect(h.takeEvents().first == "dismissed \(context) invalidated")
    }

    @Test func presentationDismissedDismissesShownToastsWhenTheSourceEnds() {
        var h = SchedulerHarness()
        h.add(toast("keep", source: "sheet"))
        h.add(toast("go", source: "sheet", invalidation: .presentationDismissed))
        let transition = h.send(.endSource("sheet"))
        #expect(transition.reply == .success(.sourceEnded(cancelled: 0, dismissed: 1)))
        #expect(h.takeEvents() == ["presented 1", "presented 2", "dismissed 2 invalidated"])
    }

    @Test func endingASourceCancelsBeforeItFreesSlots() {
        // If the shown toast were dismissed first, its slot would go to a
        // waiting toast of the same source that is about to be cancelled.
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("shown", source: "s", invalidation: .presentationDismissed))
        h.add(toast("waiting", source: "s"))
        h.add(toast("someone else", source: "t"))
        h.send(.endSource("s"))
        #expect(
            h.takeEvents() == [
                "presented 1", "queued 2", "queued 3", "cancelled 2 sourceEnded", "dismissed 1 invalidated",
                "presented 3",
            ]
        )
    }

    @Test func endingAnUnknownSourceIsHarmless() {
        var h = SchedulerHarness()
        #expect(h.send(.endSource("nobody")).reply == .success(.sourceEnded(cancelled: 0, dismissed: 0)))
        #expect(h.events.isEmpty)
    }
}

@Suite("Scheduler: scale")
struct SchedulerScaleTests {
    @Test func handlesOneHundredThousandQueuedToasts() {
        let total = 100_000
        var h = SchedulerHarness(
            SchedulerConfiguration(maxVisible: 1, maxToasts: total, maxToastsPerSource: total)
        )
        for index in 0..<total {
            h.add(toast("toast \(index)", duration: .seconds(0.1), reuseID: "r\(index)", source: "s\(index % 100)"))
        }
        #expect(h.machine.queuedCount == total - 1)
        // Operations by id, reuse id and source, deep inside the queue.
        h.send(.remove(.id(50_000)))
        h.send(.add(toast("updated", duration: .seconds(0.1), reuseID: "r70000", source: "s0")))
        h.send(.update(.reuseID("r80000", scene: "default"), ToastPatch(message: "patched")))
        h.send(.endSource("s7"))
        #expect(h.machine.record(70_001)?.toast.message == "updated")
        #expect(h.machine.record(80_001)?.toast.message == "patched")
        let cancelledBySource = h.events.count { $0.shorthand.hasSuffix("sourceEnded") }
        #expect(cancelledBySource == total / 100)

        // Drain everything through expiry: each toast ends exactly once.
        h.advance(by: 100 * ToastInstant(total))
        #expect(h.machine.count == 0)
        var ends: [ToastID: Int] = [:]
        for event in h.events where event.isEnd { ends[event.record!.id, default: 0] += 1 }
        #expect(ends.count == total)
        #expect(ends.values.allSatisfy { $0 == 1 })
    }
}
