// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastCore

/// The pure scheduler's cost per operation with N toasts already held, to
/// show that it stays flat as N grows: every lookup is a hash, queues
/// remove lazily and deadlines sit in a heap.
///
/// - add: a new toast joins a stack whose queue holds the N toasts.
/// - dedupe: an add whose reuse identifier names a queued toast (update in place).
/// - remove: a queued toast is removed by id.
/// - expire: a shown toast's lifetime ends and the next queued one is presented.
public enum SchedulerBenchmark {
    public enum Operation: String, CaseIterable, Sendable {
        case add, dedupe, remove, expire
    }

    /// The cost of one operation, from `batch` of them with `held` toasts
    /// held. `allocations` reads the process's allocation count (toast-bench
    /// links a counting malloc).
    ///
    /// Each run of operations changes the held count by at most a half (at
    /// most `held / 2` operations on one scheduler): a small `held` takes
    /// several freshly filled schedulers, so every size times the same
    /// number of operations, and the small sizes are not left to the noise
    /// of a millisecond's batch.
    public static func measure(
        _ operation: Operation, held: Int, batch: Int, allocations: () -> UInt64 = { 0 }
    ) -> (nanoseconds: Double, allocations: Double) {
        var elapsed: UInt64 = 0
        var allocated: UInt64 = 0
        var operations = 0
        while operations < batch {
            var machine = filled(held: held, expiring: operation == .expire)
            let count = min(batch - operations, max(1, held / 2))
            var now: ToastInstant = 1
            let start: UInt64
            var allocationsBefore: UInt64 = 0
            switch operation {
            case .add:
                let toasts = (0..<count).map { Toast(message: "new \($0)", duration: .indefinite, source: "bench") }
                allocationsBefore = allocations()
                start = monotonicNanoseconds()
                for toast in toasts { _ = machine.handle(.add(toast), now: now) }
            case .dedupe:
                let toasts = (0..<count).map { Toast(message: "again \($0)", duration: .indefinite, reuseID: "r\($0)", source: "bench") }
                allocationsBefore = allocations()
                start = monotonicNanoseconds()
                for toast in toasts { _ = machine.handle(.add(toast), now: now) }
            case .remove:
                // Ids 1...held were given in order; the shown ones are 1...3.
                allocationsBefore = allocations()
                start = monotonicNanoseconds()
                for id in 0..<count { _ = machine.handle(.remove(.id(ToastID(held - id))), now: now) }
            case .expire:
                // Three shown toasts expire together each second.
                let ticks = max(1, count / 3)
                allocationsBefore = allocations()
                start = monotonicNanoseconds()
                for _ in 0..<ticks {
                    now += 1_000
                    _ = machine.handle(.tick, now: now)
                }
                elapsed += monotonicNanoseconds() - start
                allocated += allocations() - allocationsBefore
                operations += ticks * 3
                continue
            }
            elapsed += monotonicNanoseconds() - start
            allocated += allocations() - allocationsBefore
            operations += count
            withExtendedLifetime(machine) {}
        }
        return (Double(elapsed) / Double(operations), Double(allocated) / Double(operations))
    }

    /// A scheduler holding `held` toasts in one stack: 3 shown, the rest
    /// queued; every toast has a reuse identifier.
    static func filled(held: Int, expiring: Bool) -> SchedulerStateMachine {
        let configuration = SchedulerConfiguration(maxToasts: held * 2 + 10, maxToastsPerSource: held * 2 + 10)
        var machine = SchedulerStateMachine(configuration: configuration)
        let duration: ToastDuration = expiring ? .seconds(1) : .indefinite
        for index in 0..<held {
            _ = machine.handle(.add(Toast(message: "held \(index)", duration: duration, reuseID: "r\(index)", source: "bench")), now: 0)
        }
        return machine
    }
}
