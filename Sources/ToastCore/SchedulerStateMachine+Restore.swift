// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A restart: the scheduler rebuilt from the live toasts a run left, with
/// ids and sequence numbers that go on from where they were.
extension SchedulerStateMachine {
    /// A scheduler that carries on from a saved state: the same toasts in
    /// the same places, and ids and sequence numbers that go on from where
    /// they were, so none is handed out twice. Toasts whose time ran out
    /// meanwhile expire on the first step.
    public init(configuration: SchedulerConfiguration = SchedulerConfiguration(), restoring state: State) {
        // A state's records come in any order; the restoration takes them
        // by id, and of two with one id the first.
        var rows = state.packedRecords
        if !zip(rows, rows.dropFirst()).allSatisfy({ $0.id < $1.id }) {
            rows = rows.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }.map(\.element)
        }
        // Records this process made are not checked again (a store's rows
        // are: `ToastStore`'s restore).
        var restoration = Restoration(configuration: configuration, checks: false)
        restoration.reserveCapacity(rows.count)
        do {
            try restoration.take(rows.map { Restoration.Row($0) })
            self = try restoration.finish(
                pausedLevel: state.pausedLevel, modes: state.modes, nextID: state.nextID, lastSequence: state.lastSequence,
                newestBySource: state.newestBySource
            )
        } catch {
            preconditionFailure("a restore that does not check its records cannot find damage: \(error)")
        }
    }

    /// A restart's scheduler, built as its live toasts arrive: a store
    /// hands them over in chunks as it reads them, to a thread of their own
    /// (`ToastStore`), so that reading the file and building the tables
    /// run side by side on two cores (docs/BENCHMARKS.md, "A restart on
    /// two cores").
    ///
    /// Waiting toasts are entered as they come, in id order, which is
    /// their order in their stacks' queues. Shown ones, a few, are held
    /// until `finish` and entered in their places.
    package struct Restoration: Sendable {
        /// A live toast's row as the restoration takes it, skimmed
        /// (`PackedRecord.skim`) already or not: the thread that reads the
        /// rows may skim some of them, so that the skim and the indexing
        /// share two cores.
        package struct Row: Sendable {
            let packed: PackedRecord
            private let skim: Skim

            private enum Skim {
                case notTaken
                /// The skim of a waiting toast that the skim reads; else nil.
                case taken(PackedRecord.Skimmed?)
            }

            /// `packed`, skimmed here if `skims`.
            package init(_ packed: PackedRecord, skims: Bool = true) {
                self.packed = packed
                skim = skims ? .taken(Self.waitingSkim(of: packed)) : .notTaken
            }

            /// The skim of a waiting toast that the skim reads, taken now if it was not.
            var skimmed: PackedRecord.Skimmed? {
                switch skim {
                case .notTaken: Self.waitingSkim(of: packed)
                case .taken(let skimmed): skimmed
                }
            }

            private static func waitingSkim(of packed: PackedRecord) -> PackedRecord.Skimmed? {
                packed.skimmed.flatMap { $0.waits ? $0 : nil }
            }
        }

        private var machine: SchedulerStateMachine
        private var cursor = RestoreCursor()
        private var shown: [(placement: UInt64, row: PackedRecord)] = []
        /// The newest id taken (none yet: nil; a state may hold id 0): ids come in ascending order.
        private var lastID: ToastID?
        private var newestPlacement: UInt64 = 0
        /// Whether each record is checked as it is unpacked (`StoredToast.checked`):
        /// rows from a file are; a state this process made is not.
        private let checks: Bool

        package init(configuration: SchedulerConfiguration = SchedulerConfiguration(), checks: Bool) {
            machine = SchedulerStateMachine(configuration: configuration)
            self.checks = checks
        }

        /// Room for `count` waiting toasts, when their number is known.
        package mutating func reserveCapacity(_ count: Int) {
            machine.records.reserveCapacity(count, queued: count)
        }

        /// Enters the next rows, in ascending id order. A row whose id is
        /// not above the last one's is left out: an id is a toast's own,
        /// and of two rows with one id the first is kept. A damaged row
        /// throws, naming the damage.
        package mutating func take(_ rows: [Row]) throws(StoredToast.Damage) {
            // An array, not any sequence: called from another module, a
            // generic `take` ran unspecialized, its iterator called through
            // witness tables (8% of a restart's restore in callgrind).
            for prepared in rows where lastID.map({ prepared.packed.id > $0 }) ?? true {
                let row = prepared.packed
                lastID = row.id
                // Most waiting toasts are checked and indexed in their bytes.
                if let skimmed = prepared.skimmed {
                    let header = machine.storeSkimmed(row, skimmed, &cursor)
                    note(placement: header.placement, createdAt: header.createdAt, presentedAt: header.presentedAt)
                } else if let header = try? row.checkedHeader, header.state == .shown {
                    shown.append((header.placement, row))
                } else {
                    // Waiting, with text the skim does not read; or damaged,
                    // and its full check names the damage.
                    try store(row)
                }
            }
        }

        /// The scheduler, with the shown toasts in their places and the
        /// counters a run left: ids and sequence numbers go on from the
        /// newest of those and of the toasts.
        package consuming func finish(
            pausedLevel: Int, modes: [String], nextID: ToastID, lastSequence: UInt64, newestBySource: [String: ToastID]
        ) throws(StoredToast.Damage) -> SchedulerStateMachine {
            shown.sort { ($0.placement, $0.row.id) < ($1.placement, $1.row.id) }
            for (_, row) in shown { try store(row) }
            machine.pausedLevel = min(max(0, pausedLevel), PauseLevels.range.upperBound)
            machine.modes = Array(Set(modes)).sorted()
            machine.nextID = max(nextID, (lastID ?? 0) + 1)
            machine.nextSequence = max(lastSequence, newestPlacement) + 1
            for (source, newest) in newestBySource where machine.sources[source] != nil {
                let current = machine.sources[source]!.newest
                machine.sources[source]!.newest = max(current, newest)
            }
            // No timer is armed yet: the first step (a `tick`) expires what
            // is overdue and arms the timer.
            return machine
        }

        /// Unpacks a row and stores its record, as an add stores a new one.
        private mutating func store(_ row: PackedRecord) throws(StoredToast.Damage) {
            let record = checks ? try StoredToast.checked(row) : row.unpacked
            // `stacks` and `sources` may move their entries: the cursor starts again.
            cursor = RestoreCursor()
            if record.state == .shown {
                machine.stacks[record.stack, default: Stack()].shown.append(record.id)
            } else {
                machine.stacks[record.stack, default: Stack()].queue.append(record.id)
            }
            machine.storeNew(record, packed: row)
            note(placement: record.placement, createdAt: record.createdAt, presentedAt: record.presentedAt)
        }

        private mutating func note(placement: UInt64, createdAt: ToastInstant, presentedAt: ToastInstant?) {
            newestPlacement = max(newestPlacement, placement)
            machine.clock = max(machine.clock, createdAt, presentedAt ?? .min)
        }
    }

    /// Stores a restart's waiting row through `storeWaiting`, from the
    /// skim `Restoration.Row` took of it; its header.
    fileprivate mutating func storeSkimmed(_ row: PackedRecord, _ skimmed: PackedRecord.Skimmed, _ cursor: inout RestoreCursor) -> PackedRecord.Header {
        row.withSkim(skimmed) { skim in
            storeWaiting(row, skim, &cursor)
            return skim.header
        }
    }

    /// Where a restart entered its last waiting toast: the next toast of
    /// the same source and stack (most often the next one, as a sender's
    /// toasts come in a row) goes to the same entries without a `String`
    /// made and hashed for each name: that was 15% of a restart's
    /// instructions (docs/BENCHMARKS.md, "A restart that reads waiting
    /// toasts in place"). Any other change to `sources` or `stacks` may
    /// move their entries: it starts a new cursor.
    struct RestoreCursor {
        var source: (name: String, index: Dictionary<String, SourceEntry>.Index)?
        var stack: (key: StackKey, index: Dictionary<StackKey, Stack>.Index)?

        /// Whether `name` is `bytes`, or the anonymous source's name where there are none.
        static func same(_ name: String, _ bytes: UnsafeBufferPointer<UInt8>?) -> Bool {
            guard let bytes else { return name == anonymousSource }
            guard name.utf8.count == bytes.count else { return false }
            guard !bytes.isEmpty else { return true }
            return name.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
                ?? name.utf8.elementsEqual(bytes)
        }
    }

    /// `dictionary`'s entry for `key`, made with `make` if there is none.
    private static func entry<Key, Value>(
        _ key: Key, in dictionary: inout [Key: Value], default make: () -> Value
    ) -> Dictionary<Key, Value>.Index {
        if let index = dictionary.index(forKey: key) { return index }
        dictionary[key] = make()
        return dictionary.index(forKey: key)!
    }

    /// A waiting toast a restart read with `PackedRecord.skim`, stored and
    /// indexed as `storeNew` stores its unpacked record, which is never
    /// built: its stack, source and identity come from the bytes.
    private mutating func storeWaiting(_ packed: PackedRecord, _ skim: PackedRecord.Skim, _ cursor: inout RestoreCursor) {
        let id = packed.id
        records.insert(queued: packed)
        if cursor.stack.map({ $0.key.alignment != skim.alignment || !RestoreCursor.same($0.key.scene, skim.scene) }) ?? true {
            let key = StackKey(scene: String(decoding: skim.scene, as: UTF8.self), alignment: skim.alignment)
            cursor.stack = (key, Self.entry(key, in: &stacks) { Stack() })
        }
        stacks.values[cursor.stack!.index].queue.append(id)
        if cursor.source.map({ !RestoreCursor.same($0.name, skim.source) }) ?? true {
            let name = skim.source.map { String(decoding: $0, as: UTF8.self) } ?? Self.anonymousSource
            cursor.source = (name, Self.entry(name, in: &sources) { SourceEntry() })
        }
        sources.values[cursor.source!.index].insert(id, cancels: skim.cancellation == .always, invalidates: false)
        if skim.hasIdentity {
            let records = self.records
            identities.insert(
                hashed: skim.identityHash(seed:), id, identity: { records.identity(of: id)! }, identity: records.identity(of:)
            )
        }
        count(id, .queued, expiresAt: skim.header.expiresAt, deadlineBefore: nil)
    }
}
