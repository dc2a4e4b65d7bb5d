import PropertyBased
import Testing

@testable import ToastCore

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
        var now: ToastInstant = 0
        var all: [ToastEvent] = []
        var entered: Set<ToastID> = []
        var ended: [ToastID: Int] = [:]
        var lastPresented: [StackKey: ToastID] = [:]

        func check(_ events: [ToastEvent], step: Int) {
            for event in events {
                if let previous = all.last {
                    #expect(event.seq == previous.seq + 1, "sequence numbers must increase by one")
                    #expect(event.time >= previous.time, "time must not go backwards")
                }
                all.append(event)
                guard let record = event.record else { continue }
                #expect(ended[record.id] == nil, "event \(event.name) for toast \(record.id) after its end")
                switch event.kind {
                case .queued:
                    #expect(entered.insert(record.id).inserted, "toast \(record.id) entered twice")
                case .presented:
                    entered.insert(record.id)
                    if let last = lastPresented[record.stack] {
                        #expect(record.id > last, "FIFO: \(record.id) presented after \(last) in \(record.stack)")
                    }
                    lastPresented[record.stack] = record.id
                case .dismissed, .cancelled:
                    #expect(entered.contains(record.id), "toast \(record.id) ended without entering")
                    ended[record.id, default: 0] += 1
                default:
                    break
                }
            }
            let snapshot = machine.snapshot()
            for stack in snapshot.stacks {
                #expect(stack.shown <= configuration.maxVisible(stack.key.alignment), "too many shown in \(stack.key)")
                if !snapshot.paused && stack.queued > 0 {
                    #expect(stack.shown == stack.maxVisible, "a toast waits while its stack has a free slot")
                }
            }
            #expect(snapshot.toasts.count { $0.state == .shown } == machine.shownCount)
            #expect(snapshot.toasts.count { $0.state == .queued } == machine.queuedCount)
            #expect(snapshot.toasts.count <= configuration.maxToasts)
            if let deadline = machine.armedDeadline { #expect(deadline > now, "an overdue timer stayed armed") }
        }

        for (index, step) in steps.enumerated() {
            if let advance = Self.advance(step) {
                let target = now + advance
                while let deadline = machine.armedDeadline, deadline <= target {
                    check(machine.handle(.tick, now: deadline).events, step: index)
                }
                now = target
            } else {
                check(machine.handle(command(step), now: now).events, step: index)
            }
        }
        // Finally end everything: every toast that entered ends exactly once.
        check(machine.handle(.resume, now: now).events, step: steps.count)
        check(machine.handle(.clear(ClearScope(force: true)), now: now).events, step: steps.count)
        #expect(machine.count == 0)
        #expect(Set(ended.keys) == entered)
        #expect(ended.values.allSatisfy { $0 == 1 })
        return all
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
        case 8: return .pause
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

    @Test func replayIsDeterministic() async {
        await propertyCheck(count: 100, input: Self.steps) { steps in
            #expect(Self.run(steps) == Self.run(steps))
        }
    }
}
