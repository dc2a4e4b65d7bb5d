// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing

@testable import ToastCore
@testable import ToastProtocol
import ToastFuzzing

/// Random command sequences against the invariants of the scheduler.
/// Each step is one integer, decoded into a command, so that a failing
/// sequence shrinks to a short list of small numbers.
@Suite("Scheduler properties")
struct SchedulerPropertyTests {
    static let configuration = SchedulerConfiguration(
        maxVisibleTop: 2, maxVisibleCenter: 1, maxVisibleBottom: 3, maxToasts: 40, maxToastsPerSource: 15
    )
    static let steps = Gen.int(in: 0...99_999).array(of: 1...250)

    /// Runs a sequence, checking the invariants after every step, and
    /// returns every event for the determinism check.
    static func run(_ steps: [Int]) -> [ToastEvent] {
        var machine = SchedulerStateMachine(configuration: configuration)
        var invariants = SchedulerInvariants(configuration: configuration)
        var now: ToastInstant = 0
        var all: [ToastEvent] = []

        for step in steps {
            if let advance = Self.advance(step) {
                let target = now + advance
                while let deadline = machine.armedDeadline, deadline <= target {
                    Self.step(&machine, &invariants, &all, .tick, at: deadline)
                }
                now = target
            } else {
                Self.step(&machine, &invariants, &all, command(step), at: now)
            }
            invariants.check(machine, now: now)
        }
        // Finally end everything: every toast that entered ends exactly once.
        invariants.finish(&machine, now: now)
        #expect(invariants.violations == [], "steps: \(steps)")
        return all
    }

    private static func step(
        _ machine: inout SchedulerStateMachine, _ invariants: inout SchedulerInvariants, _ all: inout [ToastEvent],
        _ command: SchedulerCommand, at time: ToastInstant
    ) {
        let events = machine.handle(command, now: time).events
        invariants.observe(events)
        all += events
    }

    static func advance(_ step: Int) -> ToastInstant? {
        switch step % 14 {
        case 7: ToastInstant((step / 14) % 5 + 1) * 700
        case 12: 100
        default: nil
        }
    }

    static func command(_ step: Int) -> SchedulerCommand {
        let a = (step / 14) % 4
        let b = (step / 56) % 6
        let id = ToastID((step / 14) % 30 + 1)
        switch step % 14 {
        case 0, 1, 2, 13:
            let durations: [ToastDuration?] = [.short, .seconds(0.5), .indefinite, nil, .long, .seconds(1.2)]
            return .add(
                Toast(
                    message: "m\(b)",
                    title: a == 1 ? "t" : nil,
                    role: ToastRole.allCases[b % 5],
                    duration: durations[(a + b) % 6],
                    alignment: ToastAlignment.allCases[a % 3],
                    scene: a == 3 ? "other" : Toast.defaultScene,
                    reuseID: b % 2 == 0 ? "r\(b)" : nil,
                    progress: b == 3 ? .indeterminate : .none,
                    dismissible: b != 5,
                    actions: a == 2 ? [ToastAction(id: "go", label: "Go")] : [],
                    source: "s\(a % 2)",
                    cancellation: CancellationPolicy.allCases[b % 3],
                    invalidation: InvalidationOptions(rawValue: UInt8(a))
                )
            )
        case 3: return .update(.id(id), ToastPatch(progress: .fraction(Double(b) / 5)))
        case 4: return .remove(.id(id))
        case 5: return .dismiss(.id(id))
        case 6: return .invoke(.id(id), actionID: "go")
        case 8: return .pause(level: [nil, 30, 90, 100][a])
        case 9: return .resume
        case 10: return .endSource("s\(a % 2)")
        default: return .clear(ClearScope(alignment: a == 3 ? nil : ToastAlignment.allCases[a % 3]))
        }
    }

    @Test func invariantsHoldForRandomCommandSequences() async {
        await propertyCheck(count: 300, input: Self.steps) { steps in
            _ = Self.run(steps)
        }
    }

    /// A restart anywhere in a sequence changes nothing after it: a
    /// scheduler restored from the store's rows of the state, handed over
    /// in chunks of any size as a store hands them (its waiting toasts
    /// checked and indexed in their bytes, `PackedRecord.skim`, skimmed
    /// before the hand-over or after; its shown ones put in their places at
    /// the end), answers every later command
    /// as the one it was saved from: the same dedupes by reuse id and by
    /// content, the same source triggers, the same stacks.
    @Test func aRestartAnywhereChangesNothingAfterIt() async {
        await propertyCheck(count: 150, input: zip(Self.steps, Gen.int(in: 0...249), Gen.int(in: 1...9))) { steps, cut, chunk in
            var kept = SchedulerStateMachine(configuration: Self.configuration)
            var now: ToastInstant = 0
            let split = min(cut, steps.count - 1)
            for step in steps[..<split] { Self.apply(step, to: &kept, now: &now) { _ in } }

            // In id order, as the store reads them.
            let rows = kept.state.packedRecords.sorted { $0.id < $1.id }.map { packed in
                StoredToast.withBytes(of: packed.unpacked) { bytes in try! StoredToast.row(id: packed.id, from: bytes) }
            }
            let state = kept.state
            var restoration = SchedulerStateMachine.Restoration(configuration: Self.configuration, checks: true)
            var restarted: SchedulerStateMachine
            do {
                // Every other chunk skimmed before it is handed over, as the
                // reading thread skims while the restore is behind.
                for start in stride(from: 0, to: rows.count, by: chunk) {
                    let skims = start / chunk % 2 == 0
                    try restoration.take(rows[start..<min(start + chunk, rows.count)].map { .init($0, skims: skims) })
                }
                restarted = try restoration.finish(
                    pausedLevel: state.pausedLevel, modes: state.modes, nextID: state.nextID, lastSequence: state.lastSequence,
                    newestBySource: state.newestBySource
                )
            } catch {
                Issue.record("the state did not restore: \(error), steps \(steps)")
                return
            }
            #expect(restarted.snapshot() == kept.snapshot())
            // The restored scheduler arms its timer on its first step.
            #expect(restarted.handle(.tick, now: now).events == kept.handle(.tick, now: now).events)
            for step in steps[split...] {
                var expected: [[ToastEvent]] = []
                var start = now
                Self.apply(step, to: &kept, now: &now) { expected.append($0) }
                var got: [[ToastEvent]] = []
                Self.apply(step, to: &restarted, now: &start) { got.append($0) }
                #expect(got == expected, "steps: \(steps), restarted after \(split)")
                #expect(restarted.snapshot() == kept.snapshot())
            }
        }
    }

    /// One step: a command, or time going by (each deadline on the way ticks).
    private static func apply(_ step: Int, to machine: inout SchedulerStateMachine, now: inout ToastInstant, events: ([ToastEvent]) -> Void) {
        guard let advance = Self.advance(step) else { return events(machine.handle(command(step), now: now).events) }
        let target = now + advance
        while let deadline = machine.armedDeadline, deadline <= target { events(machine.handle(.tick, now: deadline).events) }
        now = target
    }

    @Test func replayIsDeterministic() async {
        await propertyCheck(count: 100, input: Self.steps) { steps in
            #expect(Self.run(steps) == Self.run(steps))
        }
    }
}
