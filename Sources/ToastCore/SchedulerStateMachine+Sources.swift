// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

extension SchedulerStateMachine {
    // MARK: - Sources

    /// A new toast from `source`: cancel its waiting toasts whose policy is
    /// `always`, then dismiss its shown toasts that asked for `contextChanged`.
    ///
    /// The new toast's id is recorded as the source's newest first, so that
    /// a waiting `contextChanged` toast promoted into a slot freed here is
    /// already stale (see `present`): the order is invalidation, then the
    /// promotions it causes, then the new toast.
    mutating func applySourceTriggers(_ source: String) {
        // One lookup in the common case, a source with nothing to end.
        guard let index = sources.index(forKey: source), sources.values[index].noteNewest(nextID) else { return }
        for id in sources.values[index].cancelOnNext.sorted() {
            end(id, dismissed: .invalidated, cancelled: .superseded)
        }
        for id in (sources[source]?.invalidateOnNext ?? IDSet()).sorted() {
            end(id, dismissed: .invalidated, cancelled: .superseded)
        }
    }

    mutating func endSource(_ source: String) -> SchedulerReply {
        guard let entry = sources[source] else { return .sourceEnded(cancelled: 0, dismissed: 0) }
        let members = entry.all.sorted().compactMap { records[$0] }
        var cancelled = 0
        var dismissed = 0
        // Waiting toasts go first, so that a slot freed by a dismissal below
        // is never handed to a toast that is about to be cancelled.
        for record in members where record.state == .queued && record.toast.cancellation != .never {
            end(record.id, dismissed: .invalidated, cancelled: .sourceEnded)
            cancelled += 1
        }
        for record in members
        where record.state == .shown && record.toast.invalidation.contains(.presentationDismissed) {
            end(record.id, dismissed: .invalidated, cancelled: .sourceEnded)
            dismissed += 1
        }
        return .sourceEnded(cancelled: cancelled, dismissed: dismissed)
    }

    // MARK: - Clear

    mutating func clear(_ scope: ClearScope) -> SchedulerReply {
        var cleared = 0
        var kept = 0
        for key in stacks.keys.sorted() where scope.contains(key) {
            guard let stack = stacks[key] else { continue }
            for id in stack.shown + stack.queue.live(isLive: isQueued) {
                guard let record = records[id] else { continue }
                if record.toast.dismissible || scope.force {
                    end(id, dismissed: .cleared, cancelled: .cleared, refill: false)
                    cleared += 1
                } else {
                    kept += 1
                }
            }
            fill(key)
        }
        return .cleared(count: cleared, kept: kept)
    }
}
