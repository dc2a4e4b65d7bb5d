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
public struct SchedulerInvariants {
    public let configuration: SchedulerConfiguration
    /// What was broken, in order; empty while every promise holds.
    public private(set) var violations: [String] = []

    private var lastEvent: ToastEvent?
    private var entered: Set<ToastID> = []
    private var ended: [ToastID: Int] = [:]
    /// Presented since the last `check`.
    private var presented: [ToastRecord] = []

    public init(configuration: SchedulerConfiguration) {
        self.configuration = configuration
    }

    private mutating func fail(_ message: @autoclosure () -> String) {
        // The first few are enough to diagnose; a broken run can emit thousands.
        if violations.count < 20 { violations.append(message()) }
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
        guard let record = event.record else { return }
        if ended[record.id] != nil { fail("\(event.name) of toast \(record.id) after its end") }
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

    /// Checks the state the scheduler is in after a step at `now`.
    public mutating func check(_ machine: SchedulerStateMachine, now: ToastInstant) {
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
        presented = []
        let shown = snapshot.toasts.count { $0.state == .shown }
        let queued = snapshot.toasts.count { $0.state == .queued }
        if shown != machine.shownCount { fail("shownCount \(machine.shownCount), but \(shown) shown") }
        if queued != machine.queuedCount { fail("queuedCount \(machine.queuedCount), but \(queued) queued") }
        if snapshot.toasts.count > configuration.maxToasts { fail("\(snapshot.toasts.count) toasts held") }
        if let deadline = machine.armedDeadline, deadline <= now { fail("the timer for \(deadline) is overdue at \(now)") }
    }

    /// Ends everything (resume, then a forced clear) and checks that every
    /// toast that entered ended exactly once.
    public mutating func finish(_ machine: inout SchedulerStateMachine, now: ToastInstant) {
        observe(machine.handle(.resume, now: now).events)
        observe(machine.handle(.inhibit(level: 0), now: now).events)
        observe(machine.handle(.clear(ClearScope(force: true)), now: now).events)
        check(machine, now: now)
        if machine.count != 0 { fail("\(machine.count) toasts left after a forced clear") }
        let unended = entered.subtracting(ended.keys)
        if !unended.isEmpty { fail("toasts \(unended.sorted().prefix(5)) never ended") }
        if let twice = ended.first(where: { $0.value > 1 }) { fail("toast \(twice.key) ended \(twice.value) times") }
    }
}
