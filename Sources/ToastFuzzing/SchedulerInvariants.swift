// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// The scheduler's promises, checked from the outside: fed every event and
/// shown the state after every step, it records each broken promise. The
/// property tests and the fuzzer share it, so both check the same rules.
///
/// - Sequence numbers increase by exactly one; event times never go back.
/// - A toast enters once, ends at most once, and has no event after its end.
/// - Within a stack, toasts are presented in the order they entered (FIFO);
///   while paused, a toast whose level breaks through the pause may go
///   ahead of the ones held back, and only of those.
/// - No stack shows more than its maxVisible; a toast waits only while its
///   stack is full or a pause holds it back.
/// - The counters agree with the snapshot; the store never exceeds maxToasts.
/// - No armed timer is overdue after a step.
/// - After `finish`, every toast that entered ended exactly once.
/// - The events tell the truth: the state they describe is the state the
///   scheduler holds.
///
/// The checks after a step are incremental: the checker keeps the state the
/// events describe (each stack's shown and waiting toasts) and looks only
/// at the stacks the step's events touched, which costs little per step.
/// Every `fullCheckInterval` steps, after a change of the pause level or the
/// modes, and at the end, it checks everything against a full snapshot,
/// including that its own model and the snapshot agree, so a step that
/// changed the state without saying so is caught there.
public struct SchedulerInvariants {
    public let configuration: SchedulerConfiguration
    /// What was broken, in order; empty while every promise holds.
    public private(set) var violations: [String] = []

    private var lastEvent: ToastEvent?
    private var entered: Set<ToastID> = []
    private var ended: [ToastID: Int] = [:]
    /// Presented since the last `check`.
    private var presented: [ToastRecord] = []

    /// Steps between full checks against a snapshot (1: every step).
    public var fullCheckInterval = 16
    private var steps = 0
    /// The state as the events describe it.
    private var stacks: [StackKey: StackModel] = [:]
    private var live: [ToastID: ToastRecord] = [:]
    private var shownTotal = 0
    /// Stacks the events since the last `check` touched.
    private var touched: Set<StackKey> = []
    /// A change that concerns every stack (the pause level, the modes).
    private var touchedEverything = false

    private struct StackModel {
        var shown: Set<ToastID> = []
        /// In arrival order (ids grow with arrival).
        var waiting: [ToastID] = []
    }

    public init(configuration: SchedulerConfiguration) {
        self.configuration = configuration
    }

    private mutating func fail(_ message: String) {
        // The first few are enough to diagnose; a broken run can emit thousands.
        if violations.count < 20 { violations.append(message) }
    }

    public mutating func observe(_ events: [ToastEvent]) {
        for event in events { observe(event) }
    }

    public mutating func observe(_ event: ToastEvent) {
        if let previous = lastEvent {
            if event.seq != previous.seq + 1 { fail("seq \(event.seq) follows \(previous.seq)") }
            if event.time < previous.time { fail("time went back from \(previous.time) to \(event.time)") }
        } else if event.seq != 1 {
            fail("the first event has seq \(event.seq)")
        }
        lastEvent = event
        guard let record = event.record else {
            touchedEverything = true
            return
        }
        if ended[record.id] != nil { fail("\(event.name) of toast \(record.id) after its end") }
        model(event.kind, record)
        switch event.kind {
        case .queued:
            if !entered.insert(record.id).inserted { fail("toast \(record.id) entered twice") }
        case .presented:
            entered.insert(record.id)
            presented.append(record)
        case .cancelled(_, .dropped):
            // A rule's drop: it enters and ends in the same event.
            if !entered.insert(record.id).inserted { fail("toast \(record.id) was dropped after it entered") }
            ended[record.id, default: 0] += 1
        case .dismissed, .cancelled:
            if !entered.contains(record.id) { fail("toast \(record.id) ended without entering") }
            ended[record.id, default: 0] += 1
        default:
            break
        }
    }

    /// Follows the state the event describes.
    private mutating func model(_ kind: ToastEvent.Kind, _ record: ToastRecord) {
        let key = record.stack
        touched.insert(key)
        switch kind {
        case .queued:
            live[record.id] = record
            stacks[key, default: StackModel()].waiting.append(record.id)
        case .presented:
            live[record.id] = record
            stacks[key, default: StackModel()].waiting.removeAll { $0 == record.id }
            if stacks[key, default: StackModel()].shown.insert(record.id).inserted { shownTotal += 1 }
        case .updated, .action:
            if live[record.id] != nil { live[record.id] = record }
        case .dismissed, .cancelled:
            guard live.removeValue(forKey: record.id) != nil else { return }
            stacks[key]?.waiting.removeAll { $0 == record.id }
            if stacks[key]?.shown.remove(record.id) != nil { shownTotal -= 1 }
            if stacks[key]?.shown.isEmpty == true && stacks[key]?.waiting.isEmpty == true { stacks[key] = nil }
        default:
            break
        }
    }

    /// Checks the state the scheduler is in after a step at `now`:
    /// incrementally, or in full every `fullCheckInterval` steps and after a
    /// change that concerns every stack.
    public mutating func check(_ machine: SchedulerStateMachine, now: ToastInstant) {
        steps += 1
        if touchedEverything || steps % max(1, fullCheckInterval) == 0 {
            fullCheck(machine, now: now)
        } else {
            incrementalCheck(machine, now: now)
        }
        presented = []
        touched = []
        touchedEverything = false
    }

    private func isHeld(_ record: ToastRecord, _ machine: SchedulerStateMachine) -> Bool {
        machine.isPaused && machine.configuration.level(of: record.toast) < machine.pauseLevel
    }

    /// The stacks this step touched, from the model; the counters; the timer.
    private mutating func incrementalCheck(_ machine: SchedulerStateMachine, now: ToastInstant) {
        let configuration = machine.configuration
        for key in touched {
            guard let stack = stacks[key] else { continue }
            let limit = configuration.maxVisible(key.alignment)
            if stack.shown.count > limit { fail("\(stack.shown.count) shown in \(key), more than \(limit)") }
            if stack.shown.count < limit,
                let waiting = stack.waiting.first(where: { live[$0].map { !isHeld($0, machine) } ?? false })
            {
                fail("toast \(waiting) waits while \(key) has a free slot")
            }
        }
        for record in presented {
            if let overtaken = stacks[record.stack]?.waiting.first(where: { id in
                id < record.id && live[id].map { !isHeld($0, machine) } ?? false
            }) {
                fail("FIFO: toast \(record.id) presented before \(overtaken) in \(record.stack)")
            }
        }
        if shownTotal != machine.shownCount { fail("shownCount \(machine.shownCount), but the events say \(shownTotal) shown") }
        if live.count - shownTotal != machine.queuedCount {
            fail("queuedCount \(machine.queuedCount), but the events say \(live.count - shownTotal) queued")
        }
        if machine.count > configuration.maxToasts { fail("\(machine.count) toasts held") }
        if let deadline = machine.armedDeadline, deadline <= now { fail("the timer for \(deadline) is overdue at \(now)") }
    }

    /// Everything, from a full snapshot, and the model against it.
    private mutating func fullCheck(_ machine: SchedulerStateMachine, now: ToastInstant) {
        let snapshot = machine.snapshot()
        let configuration = machine.configuration
        func isHeld(_ record: ToastRecord) -> Bool {
            machine.isPaused && configuration.level(of: record.toast) < machine.pauseLevel
        }
        var free: [StackKey: Bool] = [:]
        for stack in snapshot.stacks {
            let limit = configuration.maxVisible(stack.key.alignment)
            if stack.shown > limit { fail("\(stack.shown) shown in \(stack.key), more than \(limit)") }
            free[stack.key] = stack.shown < limit
        }
        var waiting: [StackKey: [ToastRecord]] = [:]
        for record in snapshot.toasts where record.state == .queued {
            waiting[record.stack, default: []].append(record)
            if free[record.stack] == true && !isHeld(record) {
                fail("toast \(record.id) waits while \(record.stack) has a free slot")
            }
        }
        for record in presented {
            if let overtaken = waiting[record.stack]?.first(where: { $0.id < record.id && !isHeld($0) }) {
                fail("FIFO: toast \(record.id) presented before \(overtaken.id) in \(record.stack)")
            }
        }
        let shown = snapshot.toasts.count { $0.state == .shown }
        let queued = snapshot.toasts.count { $0.state == .queued }
        if shown != machine.shownCount { fail("shownCount \(machine.shownCount), but \(shown) shown") }
        if queued != machine.queuedCount { fail("queuedCount \(machine.queuedCount), but \(queued) queued") }
        if snapshot.toasts.count > configuration.maxToasts { fail("\(snapshot.toasts.count) toasts held") }
        if let deadline = machine.armedDeadline, deadline <= now { fail("the timer for \(deadline) is overdue at \(now)") }
        // The events told the truth: the model is the scheduler's state.
        if snapshot.toasts.count != live.count { fail("the events describe \(live.count) live toasts, the scheduler holds \(snapshot.toasts.count)") }
        for record in snapshot.toasts {
            let said = live[record.id]
            if said?.state != record.state || said?.stack != record.stack {
                fail("toast \(record.id) is \(record.state) in \(record.stack), but the events say \(said.map { "\($0.state) in \($0.stack)" } ?? "nothing")")
            }
        }
    }

    /// Ends everything (resume, then a forced clear) and checks that every
    /// toast that entered ended exactly once.
    public mutating func finish(_ machine: inout SchedulerStateMachine, now: ToastInstant) {
        observe(machine.handle(.resume, now: now).events)
        observe(machine.handle(.inhibit(level: 0), now: now).events)
        observe(machine.handle(.clear(ClearScope(force: true)), now: now).events)
        fullCheck(machine, now: now)
        if machine.count != 0 { fail("\(machine.count) toasts left after a forced clear") }
        let unended = entered.subtracting(ended.keys)
        if !unended.isEmpty { fail("toasts \(unended.sorted().prefix(5)) never ended") }
        if let twice = ended.first(where: { $0.value > 1 }) { fail("toast \(twice.key) ended \(twice.value) times") }
    }
}
