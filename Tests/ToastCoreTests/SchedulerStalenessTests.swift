// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// Issue #11, failures 1 and 4: what an outside client found about
/// `contextChanged` toasts promoted from the queue, and about what a dedupe
/// may change.
@Suite("Scheduler: stale contexts and what a dedupe keeps")
struct SchedulerStalenessTests {
    /// The outside client's scene: three fillers from another source fill
    /// the top stack; A then B from S wait with contextChanged; a filler is
    /// removed; then C from S arrives at the bottom. Before the fix, B was
    /// shown after C arrived and stayed for its whole lifetime.
    @Test func aPromotedContextChangedToastNeverOutlivesANewerToastOfItsSource() {
        var h = SchedulerHarness()
        for index in 1...3 { h.add(toast("filler \(index)", duration: .indefinite, source: "other")) }
        let a = h.add(toast("tab 1", source: "S", invalidation: .contextChanged))
        let b = h.add(toast("tab 2", source: "S", invalidation: .contextChanged))
        _ = h.takeEvents()
        h.send(.remove(.id(1)))
        // A's context is already stale (B is newer), so the slot goes to B.
        #expect(h.takeEvents() == ["dismissed 1 removed", "cancelled \(a) invalidated", "presented \(b)"])
        let c = h.add(toast("tab 3", alignment: .bottom, source: "S", invalidation: .contextChanged))
        #expect(h.takeEvents() == ["dismissed \(b) invalidated", "presented \(c)"])
        #expect(h.shown == [2, 3, c])
    }

    /// The order of the events a newer toast causes: the invalidation,
    /// then the promotion into the slot it freed, then the new toast.
    @Test func invalidationThenThePromotionItCausesThenTheNewToast() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        let a = h.add(toast("tab 1", source: "S", invalidation: .contextChanged))
        let waiting = h.add(toast("mail", source: "other"))
        _ = h.takeEvents()
        let c = h.add(toast("tab 2", source: "S", invalidation: .contextChanged))
        #expect(h.takeEvents() == ["dismissed \(a) invalidated", "presented \(waiting)", "queued \(c)"])
    }

    /// A stale toast that reaches the head of its queue later (when a slot
    /// frees by expiry) is skipped too, and the next toast takes the slot.
    @Test func aStaleToastIsSkippedWhenItsTurnComesAndTheNextOneIsShown() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("busy", duration: .short, source: "other"))
        let old = h.add(toast("old context", source: "S", invalidation: .contextChanged))
        let unrelated = h.add(toast("unrelated", source: "mail"))
        let newer = h.add(toast("new context", alignment: .bottom, source: "S"))
        _ = h.takeEvents()
        h.advance(by: 2_000)
        #expect(h.takeEvents() == ["dismissed 1 expired", "cancelled \(old) invalidated", "presented \(unrelated)"])
        #expect(h.machine.record(newer)?.state == .shown)
    }

    /// The newest toast of the source counts even after it has ended.
    @Test func theNewerToastMayHaveEndedAlready() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("busy", duration: .indefinite, source: "other"))
        let old = h.add(toast("old", source: "S", invalidation: .contextChanged))
        h.add(toast("keeps S alive", source: "S"))
        let newer = h.add(toast("newer", alignment: .bottom, source: "S"))
        h.send(.remove(.id(newer)))
        _ = h.takeEvents()
        h.send(.remove(.id(1)))
        #expect(h.takeEvents() == ["dismissed 1 removed", "cancelled \(old) invalidated", "presented 3"])
    }

    /// Cancellation `never` keeps a toast waiting whatever its source does,
    /// but it cannot make a stale presentation valid: it ends at its turn.
    @Test func cancellationNeverWaitsForItsTurnButAStaleToastIsStillNotShown() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("busy", duration: .indefinite, source: "other"))
        let old = h.add(toast("old", source: "S", cancellation: .never, invalidation: .contextChanged))
        h.add(toast("newer", alignment: .bottom, source: "S"))
        #expect(h.queued == [old])
        _ = h.takeEvents()
        h.send(.remove(.id(1)))
        #expect(h.takeEvents() == ["dismissed 1 removed", "cancelled \(old) invalidated"])
    }

    /// A dedupe is not a newer toast: it makes nothing stale.
    @Test func aDedupeMakesNothingStale() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("busy", duration: .indefinite, source: "other"))
        h.add(toast("again", alignment: .bottom, reuseID: "again", source: "S"))
        let waiting = h.add(toast("waiting", source: "S", invalidation: .contextChanged))
        // Re-adding the older bottom toast (a dedupe) must not invalidate the waiting one.
        h.add(toast("again, twice", alignment: .bottom, reuseID: "again", source: "S"))
        _ = h.takeEvents()
        h.send(.remove(.id(1)))
        #expect(h.takeEvents() == ["dismissed 1 removed", "presented \(waiting)"])
    }

    /// Resume presents what waited in arrival order; a stale toast among
    /// them is skipped, and its slot goes to the next in line.
    @Test func resumeSkipsStaleToastsAndFillsTheirSlots() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.send(.pause(level: nil))
        let old = h.add(toast("old", source: "S", invalidation: .contextChanged))
        let next = h.add(toast("next", source: "other"))
        let newer = h.add(toast("newer", alignment: .bottom, source: "S"))
        _ = h.takeEvents()
        h.send(.resume)
        #expect(h.takeEvents() == ["resumed", "cancelled \(old) invalidated", "presented \(next)", "presented \(newer)"])
    }

    /// Found by the fuzzer: on resume, a stack whose waiting toasts are a
    /// valid one and then a stale one, with slots for both. The stale one
    /// ends while the valid one, already taken off the queue, waits to be
    /// shown: the stack must still be there for it.
    @Test func resumeWithAValidThenAStaleToastInOneStack() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 3))
        h.send(.pause(level: nil))
        let valid = h.add(toast("valid", source: "other"))
        let stale = h.add(toast("stale", source: "S", invalidation: .contextChanged))
        h.add(toast("newer", alignment: .bottom, source: "S"))
        _ = h.takeEvents()
        h.send(.resume)
        #expect(h.takeEvents() == ["resumed", "cancelled \(stale) invalidated", "presented \(valid)", "presented 3"])
        #expect(h.shown == [valid, 3])
    }

    /// Failure 4: a dedupe takes the fields `update` may change and keeps
    /// the ones it may not (source, cancellation, invalidation).
    @Test func aDedupeKeepsTheSourceAndThePoliciesOfTheFirstAdder() throws {
        var h = SchedulerHarness()
        let id = h.add(toast("v1", reuseID: "vol", source: "first", cancellation: .always, invalidation: .presentationDismissed))
        h.add(
            toast("v2", role: .success, reuseID: "vol", source: "second", cancellation: .never, invalidation: .contextChanged)
        )
        let record = try #require(h.machine.record(id))
        #expect(record.toast.message == "v2")
        #expect(record.toast.role == .success)
        #expect(record.toast.source == "first")
        #expect(record.toast.cancellation == .always)
        #expect(record.toast.invalidation == .presentationDismissed)
        #expect(record.repeatCount == 1)
        // It still belongs to its first source: ending that source ends it.
        _ = h.takeEvents()
        h.send(.endSource("first"))
        #expect(h.takeEvents() == ["dismissed \(id) invalidated"])
    }
}
