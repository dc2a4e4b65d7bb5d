// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("Scheduler: presentation, durations and the FIFO queue")
struct SchedulerPresentationTests {
    @Test func presentsAtOnceWhileTheStackHasRoom() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 2))
        h.add(toast("a"))
        h.add(toast("b"))
        h.add(toast("c"))
        #expect(h.takeEvents() == ["presented 1", "presented 2", "queued 3"])
        #expect(h.shown == [1, 2])
        #expect(h.queued == [3])
    }

    @Test func oneAtATimeReproducesSwiftToasts() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        for name in ["a", "b", "c"] { h.add(toast(name, duration: .short)) }
        #expect(h.takeEvents() == ["presented 1", "queued 2", "queued 3"])
        h.advance(by: 2_000)
        #expect(h.takeEvents() == ["dismissed 1 expired", "presented 2"])
        h.advance(by: 2_000)
        #expect(h.takeEvents() == ["dismissed 2 expired", "presented 3"])
        h.advance(by: 2_000)
        #expect(h.takeEvents() == ["dismissed 3 expired"])
        #expect(h.machine.count == 0)
    }

    @Test func durationsCountFromPresentationNotQueueing() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("first", duration: .seconds(10)))
        let second = h.add(toast("second", duration: .short))
        h.advance(by: 10_000)
        let record = h.machine.record(second)!
        #expect(record.presentedAt == 10_000)
        #expect(record.expiresAt == 12_000)
        h.advance(by: 1_999)
        #expect(h.machine.record(second) != nil)
        h.advance(by: 1)
        #expect(h.machine.record(second) == nil)
    }

    @Test(arguments: [
        (ToastDuration.short, Int64(2_000)), (.long, 3_500), (.longer, 5_000), (.seconds(0.25), 250),
        (.seconds(7.5), 7_500),
    ])
    func namedAndNumericDurations(duration: ToastDuration, milliseconds: Int64) {
        var h = SchedulerHarness()
        let id = h.add(toast("x", duration: duration))
        #expect(h.machine.record(id)?.expiresAt == milliseconds)
        h.advance(by: milliseconds - 1)
        #expect(h.machine.record(id) != nil)
        h.advance(by: 1)
        #expect(h.machine.record(id) == nil)
    }

    @Test func theDefaultDurationIsLong() {
        var h = SchedulerHarness()
        let id = h.add(toast("x"))
        #expect(h.machine.record(id)?.expiresAt == ToastDuration.long.milliseconds)
    }

    @Test func indefiniteToastsStayUntilRemoved() {
        var h = SchedulerHarness()
        let id = h.add(toast("x", duration: .indefinite))
        h.advance(by: 86_400_000)
        #expect(h.machine.record(id)?.state == .shown)
        #expect(h.machine.armedDeadline == nil)
        h.send(.remove(.id(id)))
        #expect(h.takeEvents() == ["presented 1", "dismissed 1 removed"])
    }

    @Test func progressWithoutADurationDoesNotExpire() {
        var h = SchedulerHarness()
        let spinner = h.add(toast("working", progress: .indeterminate))
        let bar = h.add(toast("copying", progress: .fraction(0.3)))
        let timed = h.add(toast("timed", duration: .short, progress: .indeterminate))
        h.advance(by: 60_000)
        #expect(h.machine.record(spinner) != nil)
        #expect(h.machine.record(bar) != nil)
        #expect(h.machine.record(timed) == nil)
    }

    @Test func clearingProgressStartsTheDefaultLifetimeFromThen() {
        var h = SchedulerHarness()
        let id = h.add(toast("working", progress: .indeterminate))
        h.advance(by: 10_000)
        h.send(.update(.id(id), ToastPatch(message: "done", progress: ToastProgress.none)))
        #expect(h.machine.record(id)?.expiresAt == 10_000 + ToastDuration.long.milliseconds!)
    }

    @Test func stacksAreIndependentPerSceneAndAlignment() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("top"))
        h.add(toast("bottom", alignment: .bottom))
        h.add(toast("hud", alignment: .center))
        h.add(toast("sheet", scene: "sheet"))
        h.add(toast("top again"))
        #expect(h.takeEvents() == ["presented 1", "presented 2", "presented 3", "presented 4", "queued 5"])
        let stacks = h.machine.snapshot().stacks.map { "\($0.key.scene)/\($0.key.alignment.rawValue)" }
        #expect(stacks == ["default/top", "default/center", "default/bottom", "sheet/top"])
    }

    @Test func defaultSlotsAreThreeForEdgesAndOneForHUDs() {
        var h = SchedulerHarness()
        for index in 0..<4 { h.add(toast("top \(index)")) }
        for index in 0..<2 { h.add(toast("hud \(index)", alignment: .center)) }
        let summary = h.machine.snapshot().stacks.map { [$0.shown, $0.queued] }
        #expect(summary == [[3, 1], [1, 1]])
    }

    @Test func timerEffectsFollowTheEarliestDeadline() {
        var h = SchedulerHarness()
        let long = h.send(.add(toast("long", duration: .longer)))
        #expect(long.effects.last == .armTimer(at: 5_000))
        let short = h.send(.add(toast("short", duration: .short)))
        #expect(short.effects.last == .armTimer(at: 2_000))
        // A command that does not move the earliest deadline arms nothing.
        let same = h.send(.add(toast("indefinite", duration: .indefinite)))
        #expect(!same.effects.contains { if case .armTimer = $0 { true } else { false } })
        h.advance(by: 5_000)
        #expect(h.effects.suffix(1) == [.disarmTimer])
    }

    @Test func aLateTickExpiresBeforeTheCommandActs() {
        var h = SchedulerHarness()
        h.add(toast("x", duration: .short))
        // No tick at 2000: the event loop was late. A re-add at 2500 must
        // not revive the expired toast.
        let transition = h.machine.handle(.add(toast("x", duration: .short)), now: 2_500)
        #expect(transition.events.map(\.shorthand) == ["dismissed 1 expired", "presented 2"])
    }

    @Test func sequenceNumbersAndTimesComeFromTheStep() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("a", duration: .short))
        h.add(toast("b"))
        h.advance(by: 2_000)
        #expect(h.events.map(\.seq) == [1, 2, 3, 4])
        #expect(h.events.map(\.time) == [0, 0, 2_000, 2_000])
        #expect(h.machine.lastSequence == 4)
    }
}
