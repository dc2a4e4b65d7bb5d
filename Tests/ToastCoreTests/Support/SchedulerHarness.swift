// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// Drives a scheduler on a virtual clock and keeps every event it emitted.
struct SchedulerHarness {
    var machine: SchedulerStateMachine
    private(set) var now: ToastInstant = 0
    private(set) var events: [ToastEvent] = []
    private(set) var effects: [SchedulerEffect] = []

    init(_ configuration: SchedulerConfiguration = SchedulerConfiguration()) {
        machine = SchedulerStateMachine(configuration: configuration)
    }

    @discardableResult
    mutating func send(_ command: SchedulerCommand) -> SchedulerTransition {
        let transition = machine.handle(command, now: now)
        record(transition.effects)
        return transition
    }

    /// Adds a toast and returns its id; fails the test if the add failed.
    @discardableResult
    mutating func add(_ toast: Toast, sourceLocation: SourceLocation = #_sourceLocation) -> ToastID {
        switch send(.add(toast)).reply {
        case .success(.added(let record, _, _)):
            return record.id
        case let other:
            Issue.record("add failed: \(other)", sourceLocation: sourceLocation)
            return 0
        }
    }

    /// Moves the clock forward, firing each timer at the instant it was armed for.
    mutating func advance(by milliseconds: ToastInstant) {
        let target = now + milliseconds
        while let deadline = machine.armedDeadline, deadline <= target {
            now = deadline
            record(machine.handle(.tick, now: now).effects)
        }
        now = target
    }

    private mutating func record(_ new: [SchedulerEffect]) {
        effects += new
        for effect in new {
            if case .publish(let event) = effect { events.append(event) }
        }
    }

    mutating func takeEvents() -> [String] {
        defer { events = [] }
        return events.map(\.shorthand)
    }

    var shown: [ToastID] { machine.snapshot().toasts.filter { $0.state == .shown }.map(\.id) }
    var queued: [ToastID] { machine.snapshot().toasts.filter { $0.state == .queued }.map(\.id) }
}

extension ToastEvent {
    /// A compact form for assertions: "presented 1", "dismissed 2 expired @3500".
    var shorthand: String {
        let id = record.map { " \($0.id)" } ?? ""
        switch kind {
        case .dismissed(_, let reason): return "dismissed\(id) \(reason.rawValue)"
        case .cancelled(_, let reason): return "cancelled\(id) \(reason.rawValue)"
        case .action(_, let action): return "action\(id) \(action)"
        default: return name + id
        }
    }
}

import Testing

func toast(
    _ message: String,
    role: ToastRole = .plain,
    duration: ToastDuration? = nil,
    alignment: ToastAlignment = .top,
    scene: String = Toast.defaultScene,
    reuseID: String? = nil,
    progress: ToastProgress = .none,
    dismissible: Bool = true,
    actions: [ToastAction] = [],
    source: String? = nil,
    cancellation: CancellationPolicy = .presentation,
    invalidation: InvalidationOptions = []
) -> Toast {
    Toast(
        message: message, role: role, duration: duration, alignment: alignment, scene: scene, reuseID: reuseID,
        progress: progress, dismissible: dismissible, actions: actions, source: source, cancellation: cancellation,
        invalidation: invalidation
    )
}
