// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

extension SchedulerStateMachine {
    struct Stack: Sendable {
        /// Shown toasts, oldest first; the newest is last.
        var shown: [ToastID] = []
        var queue = WaitQueue()
    }

    /// A source's toasts, with the subsets its next toast or its end act on.
    struct SourceEntry: Sendable {
        var all = IDSet()
        /// Waiting toasts with cancellation `always`.
        var cancelOnNext = IDSet()
        /// Shown toasts with the `contextChanged` invalidation option.
        var invalidateOnNext = IDSet()
        /// The id of the newest toast the source added (not a dedupe): a
        /// waiting `contextChanged` toast older than it is stale.
        var newest: ToastID = 0

        mutating func insert(_ record: ToastRecord) {
            insert(record.id, cancels: Self.cancels(record), invalidates: Self.invalidates(record))
        }

        /// `insert` for a toast known by its id and subsets (a restart's skim).
        mutating func insert(_ id: ToastID, cancels: Bool, invalidates: Bool) {
            all.insert(id)
            newest = max(newest, id)
            if cancels { cancelOnNext.insert(id) }
            if invalidates { invalidateOnNext.insert(id) }
        }

        // The two methods below answer as they change the entry: read
        // through `Dictionary.Values`' getter, each answer was a copy of the
        // whole entry (its three sets retained and released).

        /// Removes a toast; true if none of the source's toasts is left.
        mutating func remove(_ record: ToastRecord) -> Bool {
            all.remove(record.id)
            cancelOnNext.remove(record.id)
            invalidateOnNext.remove(record.id)
            return all.isEmpty
        }

        /// Records `id` as the source's newest toast; true if a new toast
        /// has toasts of the source to end (`applySourceTriggers`).
        mutating func noteNewest(_ id: ToastID) -> Bool {
            newest = id
            return !cancelOnNext.isEmpty || !invalidateOnNext.isEmpty
        }

        private static func cancels(_ record: ToastRecord) -> Bool {
            record.state == .queued && record.toast.cancellation == .always
        }

        private static func invalidates(_ record: ToastRecord) -> Bool {
            record.state == .shown && record.toast.invalidation.contains(.contextChanged)
        }

        /// Whether the same toast in a new state joins or leaves a subset
        /// (if not, `move` would change nothing).
        static func changesSubsets(from old: ToastRecord, to new: ToastRecord) -> Bool {
            cancels(old) != cancels(new) || invalidates(old) != invalidates(new)
        }

        /// The same toast in a new state: `all` and `newest` stay as they
        /// are, and each subset changes only if its membership does.
        mutating func move(from old: ToastRecord, to new: ToastRecord) {
            let (cancels, invalidates) = (Self.cancels, Self.invalidates)
            if cancels(old) != cancels(new) {
                if cancels(new) { cancelOnNext.insert(new.id) } else { cancelOnNext.remove(new.id) }
            }
            if invalidates(old) != invalidates(new) {
                if invalidates(new) { invalidateOnNext.insert(new.id) } else { invalidateOnNext.remove(new.id) }
            }
        }
    }
}
