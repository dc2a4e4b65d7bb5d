// SPDX-License-Identifier: Apache-2.0
import ToastCore

extension ToastStore {
    /// What one step (a read burst, a tick) changed: its changes in order,
    /// folded into rows by the commit. The step notes them on the event
    /// loop and the commit folds them wherever it runs: a step committed on
    /// the commit thread is folded there, and folding (a dictionary keyed
    /// by toast id) was 3% of the loop's work an add (docs/BENCHMARKS.md,
    /// section 2, "Replies written after the commit").
    public struct Batch: Sendable {
        enum Change: Sendable {
            case event(ToastEvent)
            /// An event that wrote a waiting toast, as the packed bytes the
            /// scheduler holds for it: written as they are.
            case waiting(PackedRecord)
            case history(ToastService.HistoryChange)
            case bind(String, Bool)
        }

        private(set) var changes: [Change] = []
        /// The paused level and the modes, as the step left them.
        public var pausedLevel = 0
        public var modes: [String] = []
        public var nextID: ToastID = 1
        public var lastSequence: UInt64 = 0
        /// The newest journal record whose changes this batch holds (with
        /// every older one's): noted in the file with the batch, so that a
        /// start applies only the records after it (`StepJournal`).
        public var journaled: UInt64 = 0

        public init() {}

        /// Appends `later`'s changes after this batch's, and takes its
        /// counters: one batch that leaves what the two in turn would.
        public mutating func absorb(_ later: Batch) {
            // Taken whole when this batch is empty (the common case): `+=`
            // would copy each change, retaining what it holds.
            if changes.isEmpty { changes = later.changes } else { changes += later.changes }
            pausedLevel = later.pausedLevel
            modes = later.modes
            nextID = later.nextID
            lastSequence = later.lastSequence
            journaled = max(journaled, later.journaled)
        }

        public var isEmpty: Bool { changes.isEmpty }

        /// How many changes the step noted: about as many as the rows it
        /// writes, and what decides, without folding them, whether it is
        /// small enough to commit on the event loop.
        public var changeCount: Int { changes.count }

        /// Takes note of an event the scheduler published, and of the packed
        /// bytes the scheduler holds for its toast if it waits
        /// (`SchedulerStateMachine.packedWaiting(after:)`). The commit
        /// writes those rather than packing the event's record again: that
        /// packing was about a sixth of the commit thread's work an add.
        package mutating func note(_ event: ToastEvent, waiting packed: PackedRecord? = nil) {
            changes.append(packed.map(Change.waiting) ?? .event(event))
        }

        public mutating func note(_ change: ToastService.HistoryChange) { changes.append(.history(change)) }

        /// A connection bound (`true`) or released (`false`) a source.
        public mutating func bind(_ source: String, _ bound: Bool) { changes.append(.bind(source, bound)) }

        /// A live toast's row: its record, or a waiting toast's packed bytes.
        enum LiveRow: Equatable {
            case record(ToastRecord)
            case packed(PackedRecord)

            /// The row's bytes as stored (`StoredToast`), lent to `body`.
            func withStoredBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
                switch self {
                case .record(let record): try StoredToast.withBytes(of: record, body)
                case .packed(let packed): try StoredToast.withBytes(of: packed, body)
                }
            }
        }

        /// The rows a batch's changes come to: each toast's last state, the
        /// ended toasts' history entries, and so on.
        struct Rows {
            var upserts: [ToastID: LiveRow] = [:]
            var deletes: Set<ToastID> = []
            var ended: [ToastHistory.Entry] = []
            var historyRemovals: [ToastID] = []
            var historyCleared = false
            var bound: [String: Bool] = [:]

            init() {}

            init(_ changes: [Change]) {
                for change in changes {
                    switch change {
                    case .event(let event): note(event)
                    case .waiting(let packed): upsert(.packed(packed), packed.id)
                    case .history(let change): note(change)
                    case .bind(let source, let bound): self.bound[source] = bound
                    }
                }
            }

            private mutating func note(_ event: ToastEvent) {
                switch event.kind {
                case .queued(let record), .presented(let record), .updated(let record):
                    upsert(.record(record), record.id)
                case .dismissed(let record, _), .cancelled(let record, _):
                    upserts[record.id] = nil
                    deletes.insert(record.id)
                    if let entry = ToastHistory.Entry(event) { ended.append(entry) }
                case .action, .paused, .resumed, .modes:
                    break
                }
            }

            private mutating func upsert(_ row: LiveRow, _ id: ToastID) {
                upserts[id] = row
                if !deletes.isEmpty { deletes.remove(id) }
            }

            private mutating func note(_ change: ToastService.HistoryChange) {
                switch change {
                case .removed(let id):
                    // An entry this batch would insert goes too: the commit
                    // deletes before it inserts.
                    if !ended.isEmpty { ended.removeAll { $0.record.id == id } }
                    historyRemovals.append(id)
                case .cleared:
                    historyCleared = true
                    historyRemovals = []
                    ended = []
                }
            }
        }

        var rows: Rows { Rows(changes) }

        var counters: Counters {
            Counters(nextID: nextID, lastSequence: lastSequence, pausedLevel: pausedLevel, modes: modes, journaled: journaled)
        }
    }
}
