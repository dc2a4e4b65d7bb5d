// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif
/// The global toast scheduler, as a pure state machine.
///
/// `handle(_:now:)` is the only way in: it takes a command and the current
/// time and returns the reply plus the effects (events to publish, the timer
/// to arm). It does no I/O and reads no clock, so the same commands at the
/// same times always produce the same events, ids and sequence numbers.
///
/// Every operation by id, identity or source is a hash lookup; waiting
/// queues remove lazily and deadlines live in a heap, so the cost of an
/// operation does not grow with the number of toasts held.
public struct SchedulerStateMachine: Sendable {
    public internal(set) var configuration: SchedulerConfiguration

    /// The level `pause` set (0: not paused); kept across restarts.
    public internal(set) var pausedLevel = 0
    /// The level inhibitors hold (0: none); it ends with their connections.
    public private(set) var inhibitLevel = 0
    /// What is held back: toasts below this level wait (0: nothing).
    public var pauseLevel: Int { max(pausedLevel, inhibitLevel) }
    public var isPaused: Bool { pauseLevel > 0 }
    /// The active modes, sorted.
    public internal(set) var modes: [String] = []
    public private(set) var shownCount = 0
    public private(set) var queuedCount = 0
    /// The sequence number of the last event emitted (0 before any).
    public var lastSequence: UInt64 { nextSequence - 1 }
    /// The instant the timer is armed for, if any.
    public private(set) var armedDeadline: ToastInstant?

    var clock: ToastInstant = .min
    var nextID: ToastID = 1
    var nextSequence: UInt64 = 1
    var records = RecordTable()
    var stacks: [StackKey: Stack] = [:]
    var identities = IdentityIndex()
    var sources: [String: SourceEntry] = [:]
    var deadlines = DeadlineHeap()
    var timedCount = 0
    /// Effects accumulated by the current step.
    var effects: [SchedulerEffect] = []

    public init(configuration: SchedulerConfiguration = SchedulerConfiguration()) {
        self.configuration = configuration
    }

    /// A scheduler whose identity index files identities under
    /// `identityHash` (tests: a constant makes every identity collide).
    init(configuration: SchedulerConfiguration, identityHash: @escaping @Sendable (Identity) -> Int) {
        self.configuration = configuration
        identities = IdentityIndex(hash: identityHash)
    }

    /// The id the next new toast will get.
    public var nextToastID: ToastID { nextID }

    /// Everything a restart needs to carry on exactly where a run stopped.
    public struct State: Sendable, Hashable {
        /// The live toasts, in any order: stacks are rebuilt from their
        /// `placement` (shown) and ids (waiting). Kept packed, as the
        /// scheduler keeps a waiting toast: a restart hands 100,000 of them
        /// from the store to the scheduler without a `ToastRecord` each.
        package var packedRecords: [PackedRecord]
        /// The level `pause` set (0: not paused).
        public var pausedLevel: Int
        public var modes: [String]
        public var nextID: ToastID
        public var lastSequence: UInt64
        /// The newest id each source added, for stale contexts (ended toasts included).
        public var newestBySource: [String: ToastID]

        public init(
            records: [ToastRecord] = [], pausedLevel: Int = 0, modes: [String] = [], nextID: ToastID = 1,
            lastSequence: UInt64 = 0, newestBySource: [String: ToastID] = [:]
        ) {
            self.init(
                packedRecords: records.map(PackedRecord.init), pausedLevel: pausedLevel, modes: modes, nextID: nextID,
                lastSequence: lastSequence, newestBySource: newestBySource
            )
        }

        package init(
            packedRecords: [PackedRecord], pausedLevel: Int, modes: [String], nextID: ToastID, lastSequence: UInt64,
            newestBySource: [String: ToastID]
        ) {
            self.packedRecords = packedRecords
            self.pausedLevel = pausedLevel
            self.modes = modes
            self.nextID = nextID
            self.lastSequence = lastSequence
            self.newestBySource = newestBySource
        }

        /// The live toasts, unpacked (each read builds them anew).
        public var records: [ToastRecord] {
            get { packedRecords.map(\.unpacked) }
            set { packedRecords = newValue.map(PackedRecord.init) }
        }

        public var recordCount: Int { packedRecords.count }

        public static func == (lhs: State, rhs: State) -> Bool {
            lhs.records == rhs.records && lhs.pausedLevel == rhs.pausedLevel && lhs.modes == rhs.modes && lhs.nextID == rhs.nextID
                && lhs.lastSequence == rhs.lastSequence && lhs.newestBySource == rhs.newestBySource
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(records)
            hasher.combine(pausedLevel)
            hasher.combine(modes)
            hasher.combine(nextID)
            hasher.combine(lastSequence)
            hasher.combine(newestBySource)
        }
    }

    /// The state to save, as `init(restoring:)` takes it.
    public var state: State {
        var newest: [String: ToastID] = [:]
        for (source, entry) in sources { newest[source] = entry.newest }
        return State(
            records: Array(records.values), pausedLevel: pausedLevel, modes: modes, nextID: nextID,
            lastSequence: lastSequence, newestBySource: newest
        )
    }

    /// The name used for toasts that carry no source.
    public static let anonymousSource = "anonymous"

    // MARK: - The step function

    public mutating func handle(_ command: SchedulerCommand, now: ToastInstant) -> SchedulerTransition {
        handle(command, now: now, validated: false)
    }

    /// `validated`: the command's toast (of an add or a drop) has passed
    /// `Toast.validate()` since it last changed, so it is not checked again.
    /// `ToastService` says so for a toast the wire decoder made, which the
    /// decoder checked; every other caller's toast is checked here.
    mutating func handle(_ command: SchedulerCommand, now: ToastInstant, validated: Bool) -> SchedulerTransition {
        clock = max(clock, now)
        effects = []
        // Whatever is overdue expires before the command sees the state, so a
        // late timer never lets a command act on a toast that already ended.
        let expired = expireDue()
        let reply: Result<SchedulerReply, ToastError>
        do {
            reply = .success(try perform(command, expired: expired, validated: validated))
        } catch {
            reply = .failure(error)
        }
        _ = expireDue()
        rearmTimer()
        let transition = SchedulerTransition(reply: reply, effects: effects)
        effects = []
        return transition
    }

    mutating func perform(_ command: SchedulerCommand, expired: Int, validated: Bool) throws(ToastError) -> SchedulerReply {
        switch command {
        case .add(let toast):
            if !validated { try toast.validate() }
            return try add(toast)
        case .drop(let toast):
            if !validated { try toast.validate() }
            let record = ToastRecord(
                id: nextID, toast: toast, state: .queued, repeatCount: 1, createdAt: clock, presentedAt: nil,
                expiresAt: nil, placement: nextSequence
            )
            nextID += 1
            emit(.cancelled(record, .dropped))
            return .dropped(record)
        case .update(let target, let patch):
            return try update(target, patch)
        case .remove(let target):
            let record = try resolve(target)
            end(record, dismissed: .removed, cancelled: .removed)
            return .ended(record)
        case .dismiss(let target):
            let record = try resolve(target)
            guard record.toast.dismissible else {
                throw ToastError(
                    .notDismissible,
                    "toast \(record.id) is not dismissible; its sender must remove it (or use remove)"
                )
            }
            end(record, dismissed: .user, cancelled: .user)
            return .ended(record)
        case .invoke(let target, let actionID):
            let record = try resolve(target)
            guard record.toast.actions.contains(where: { $0.id == actionID }) else {
                let known = record.toast.actions.map(\.id)
                throw ToastError(
                    .unknownAction,
                    "toast \(record.id) has no action '\(actionID)'"
                        + (known.isEmpty ? "; it has no actions" : "; its actions are: \(known.joined(separator: ", "))"),
                    field: "action"
                )
            }
            emit(.action(record, actionID: actionID))
            // A resident toast stays: its action may be invoked again.
            if record.toast.resident { return .invoked(record) }
            end(record, dismissed: .action, cancelled: .action)
            return .ended(record)
        case .clear(let scope):
            return clear(scope)
        case .pause(let level):
            let level = level ?? configuration.pauseLevels.defaultLevel
            guard PauseLevels.range.contains(level) else {
                throw ToastError(.invalidField, "a pause level is 0 to 100, not \(level)", field: "level")
            }
            changePause { $0.pausedLevel = level }
            return .paused(level: pauseLevel)
        case .resume:
            changePause { $0.pausedLevel = 0 }
            return .paused(level: pauseLevel)
        case .inhibit(let level):
            changePause { $0.inhibitLevel = min(max(0, level), PauseLevels.range.upperBound) }
            return .paused(level: pauseLevel)
        case .setModes(let names):
            let sorted = Array(Set(names)).sorted()
            if sorted != modes {
                modes = sorted
                emit(.modes(sorted))
            }
            return .modes(modes)
        case .endSource(let source):
            return endSource(source)
        case .tick:
            return .ticked(expired: expired)
        }
    }

    /// Changes the levels; announces the new effective level, and shows
    /// what a lower level lets through.
    mutating func changePause(_ change: (inout Self) -> Void) {
        let before = pauseLevel
        change(&self)
        let after = pauseLevel
        guard after != before else { return }
        emit(after == 0 ? .resumed : .paused(level: after))
        if after < before { fillAllStacks() }
    }

    /// Takes a new configuration (a reload): stacks with more slots fill at
    /// once; with fewer, shown toasts stay until they end.
    public mutating func reconfigure(_ configuration: SchedulerConfiguration, now: ToastInstant) -> SchedulerTransition {
        clock = max(clock, now)
        effects = []
        self.configuration = configuration
        fillAllStacks()
        rearmTimer()
        let transition = SchedulerTransition(reply: .success(.paused(level: pauseLevel)), effects: effects)
        effects = []
        return transition
    }

    /// Whether a pause holds this toast back.
    func isHeld(_ record: ToastRecord) -> Bool {
        isPaused && configuration.level(of: record.toast) < pauseLevel
    }

    // MARK: - Queries

    public func record(_ id: ToastID) -> ToastRecord? { records[id] }

    /// The packed bytes held for the toast `event` wrote, when it waits:
    /// its stored form (`StoredToast`), as new as the event's record or
    /// newer, which a store writes rather than packing that record again.
    package func packedWaiting(after event: ToastEvent) -> PackedRecord? {
        switch event.kind {
        case .queued(let record), .updated(let record): records.packed(record.id)
        default: nil
        }
    }

    /// Whether the toast is shown or queued (nil: it ended or never was),
    /// without unpacking a queued record as `record(_:)` does.
    public func state(of id: ToastID) -> ToastRecord.State? { records.state(of: id) }

    public func record(for target: ToastTarget) -> ToastRecord? {
        switch target {
        case .id(let id): records[id]
        case .reuseID(let reuseID, let scene): holderRecord(of: .reuse(scene: scene, id: reuseID))
        }
    }

    public var count: Int { records.count }

    /// Every live toast, stack by stack (ordered by scene, then top, center,
    /// bottom); within a stack the shown ones oldest first, then the waiting
    /// ones in the order they will be shown.
    public func snapshot(filter: EventFilter = EventFilter()) -> SchedulerSnapshot {
        var toasts: [ToastRecord] = []
        var summaries: [SchedulerSnapshot.Stack] = []
        for key in stacks.keys.sorted() where filter.matches(scene: key.scene) {
            let stack = stacks[key]!
            let waiting = stack.queue.live(isLive: isQueued)
            let members = (stack.shown + waiting).compactMap { records[$0] }.filter(filter.matches)
            toasts.append(contentsOf: members)
            summaries.append(
                SchedulerSnapshot.Stack(
                    key: key,
                    shown: members.count { $0.state == .shown },
                    queued: members.count { $0.state == .queued },
                    maxVisible: configuration.maxVisible(key.alignment)
                )
            )
        }
        return SchedulerSnapshot(
            pauseLevel: pauseLevel, modes: modes, sequence: lastSequence, stacks: summaries, toasts: toasts
        )
    }

    // MARK: - Presentation and expiry

    mutating func present(_ id: ToastID) {
        guard let queued = records[id] else { return }
        var record = queued
        record.state = .shown
        record.presentedAt = clock
        record.placement = nextSequence
        record.expiresAt = record.toast.effectiveLifetime.map { clock + $0 }
        stacks[record.stack]!.shown.append(id)
        store(record, replacing: queued)
        emit(.presented(record))
    }

    /// Whether a newer toast from the same source has made this one's
    /// context stale (section 5.4 of PROTOCOL.md).
    func isStale(_ record: ToastRecord) -> Bool {
        record.toast.invalidation.contains(.contextChanged)
            && (sources[record.sourceKey]?.newest ?? 0) > record.id
    }

    /// Shows waiting toasts of one stack while it has free slots.
    mutating func fill(_ key: StackKey) {
        defer { dropIfEmpty(key) }
        let limit = configuration.maxVisible(key.alignment)
        while (stacks[key]?.shown.count ?? limit) < limit, let next = popPresentable(key) {
            present(next)
        }
    }

    /// After a resume: fills every stack, presenting in arrival order across stacks.
    mutating func fillAllStacks() {
        if isPaused {
            for key in stacks.keys.sorted() { fill(key) }
            return
        }
        var promoted: [ToastID] = []
        for key in stacks.keys.sorted() {
            var slots = configuration.maxVisible(key.alignment) - stacks[key]!.shown.count
            while slots > 0, let next = popPresentable(key) {
                promoted.append(next)
                slots -= 1
            }
        }
        for id in promoted.sorted() {
            present(id)
        }
        for key in stacks.keys.sorted() { dropIfEmpty(key) }
    }

    /// Expires every shown toast whose deadline has passed, earliest first.
    mutating func expireDue() -> Int {
        var expired = 0
        while let entry = deadlines.peek(isValid: { [records] in records.expiresAt(of: $0.id) == $0.deadline }),
            entry.deadline <= clock
        {
            _ = deadlines.popMin()
            end(entry.id, dismissed: .expired, cancelled: .removed)
            expired += 1
        }
        return expired
    }

    mutating func rearmTimer() {
        let records = self.records
        if deadlines.count > 2 * timedCount + 64 {
            deadlines.rebuild { records.expiresAt(of: $0.id) == $0.deadline }
        }
        let next = deadlines.peek { records.expiresAt(of: $0.id) == $0.deadline }?.deadline
        guard next != armedDeadline else { return }
        armedDeadline = next
        effects.append(next.map { .armTimer(at: $0) } ?? .disarmTimer)
    }

    // MARK: - Bookkeeping

    /// Ends a toast: dismissed if it was shown, cancelled if it waited.
    /// `dequeued`: a waiting toast already taken off its queue (by `popWaiting`).
    mutating func end(
        _ id: ToastID, dismissed: DismissReason, cancelled: CancelReason, refill: Bool = true, dequeued: Bool = false
    ) {
        guard let record = records[id] else { return }
        end(record, dismissed: dismissed, cancelled: cancelled, refill: refill, dequeued: dequeued)
    }

    /// Ends a toast whose record the caller has just read (and not changed
    /// since): a waiting toast is not unpacked again.
    mutating func end(
        _ record: ToastRecord, dismissed: DismissReason, cancelled: CancelReason, refill: Bool = true, dequeued: Bool = false
    ) {
        let id = record.id
        let key = record.stack
        store(nil, replacing: record)
        switch record.state {
        case .shown:
            stacks[key]?.shown.removeAll { $0 == id }
            emit(.dismissed(record, dismissed))
            if refill { fill(key) }
        case .queued:
            if !dequeued, var queue = takeQueue(key) {
                queue.noteRemoved(isLive: { self.isQueued($0) })
                stacks[key]!.queue = queue
            }
            emit(.cancelled(record, cancelled))
        }
        // A toast taken off its queue by a filler: the filler may hold others
        // it took from the same stack, and drops the stack when it is done.
        if !dequeued { dropIfEmpty(key) }
    }

    mutating func dropIfEmpty(_ key: StackKey) {
        if let stack = stacks[key], stack.shown.isEmpty, stack.queue.isEmpty {
            stacks[key] = nil
        }
    }

    /// The one place that changes a record: it keeps every index (identity,
    /// source, counters, deadlines) in step with the record itself. A new
    /// record (`replacing: nil`) goes through `storeNew`.
    mutating func store(_ new: ToastRecord?, replacing old: ToastRecord?) {
        guard let old else {
            if let new { storeNew(new) }
            return
        }
        // A change of state keeps the identity and its entry: no need to hash it again.
        let keepsIdentity = new.map { $0.id == old.id && Identity.same(old.toast, $0.toast) } ?? false
        // The same toast from the same source (a change of state, an update,
        // a dedupe): its source entry only moves it between subsets.
        let sameSource = new.map { $0.id == old.id && $0.sourceKey == old.sourceKey } ?? false
        if sameSource {
            // Only a change of subset needs the entry (and the source's name hashed).
            if SourceEntry.changesSubsets(from: old, to: new!) { sources[old.sourceKey]?.move(from: old, to: new!) }
        } else if let index = sources.index(forKey: old.sourceKey), sources.values[index].remove(old) {
            sources.remove(at: index)
        }
        if !keepsIdentity, let identity = Identity(old.toast) { identities.remove(identity, old.id) }
        if old.expiresAt != nil { timedCount -= 1 }
        if old.state == .shown { shownCount -= 1 } else { queuedCount -= 1 }
        guard let new else {
            records[old.id] = nil
            return
        }
        records[new.id] = new
        index(new, sameSource: sameSource, keepsIdentity: keepsIdentity, deadlineBefore: old.expiresAt)
    }

    /// `store(new, replacing: nil)`: a record the scheduler did not hold.
    /// Without the optionals, whose copies were a seventh of storing a
    /// restart's record (docs/BENCHMARKS.md, "A restart's records stored
    /// lean"). `packed`: `new` as
    /// `PackedRecord` packs it, if the caller has it (a restart), so that a
    /// waiting record is not packed again.
    mutating func storeNew(_ new: ToastRecord, packed: PackedRecord? = nil) {
        if let packed {
            records.insert(new, packed: packed)
        } else {
            records[new.id] = new
        }
        index(new, sameSource: false, keepsIdentity: false, deadlineBefore: nil)
    }

    /// Enters a stored record in the indexes that `store` left as they were.
    private mutating func index(_ new: ToastRecord, sameSource: Bool, keepsIdentity: Bool, deadlineBefore: ToastInstant?) {
        if !sameSource { sources[new.sourceKey, default: SourceEntry()].insert(new) }
        if !keepsIdentity, let identity = Identity(new.toast) {
            let records = self.records
            identities.insert(identity, new.id, identity: records.identity(of:))
        }
        count(new.id, new.state, expiresAt: new.expiresAt, deadlineBefore: deadlineBefore)
    }

    /// Counts a stored toast, and arms its deadline if it has a new one.
    mutating func count(_ id: ToastID, _ state: ToastRecord.State, expiresAt: ToastInstant?, deadlineBefore: ToastInstant?) {
        if state == .shown { shownCount += 1 } else { queuedCount += 1 }
        if let deadline = expiresAt {
            timedCount += 1
            if deadline != deadlineBefore {
                deadlines.push(.init(deadline: deadline, id: id))
            }
        }
    }

    func isQueued(_ id: ToastID) -> Bool { state(of: id) == .queued }

    /// Moves a stack's queue out of `stacks`, so it can be changed while
    /// `records` is read without copying either (copy-on-write would
    /// otherwise copy the whole queue or the whole record table).
    mutating func takeQueue(_ key: StackKey) -> WaitQueue? {
        // One lookup of the key (hashing a scene's name), not three.
        guard let index = stacks.index(forKey: key) else { return nil }
        var queue = WaitQueue()
        swap(&queue, &stacks.values[index].queue)
        return queue
    }

    /// Takes the oldest waiting toast of a stack that may still be shown.
    /// A toast whose presentation is already invalid (`isStale`) is never
    /// shown: it ends `cancelled` with reason `invalidated`, and the next one
    /// in line is taken instead.
    mutating func popPresentable(_ key: StackKey) -> ToastID? {
        if isPaused { return popBreakingThrough(key) }
        while let next = popWaiting(key) {
            guard let record = records[next], isStale(record) else { return next }
            end(next, dismissed: .invalidated, cancelled: .invalidated, refill: false, dequeued: true)
        }
        return nil
    }

    /// While paused: the oldest waiting toast whose level breaks through;
    /// the ones held back keep their places.
    mutating func popBreakingThrough(_ key: StackKey) -> ToastID? {
        guard let waiting = stacks[key]?.queue.live(isLive: isQueued) else { return nil }
        for id in waiting {
            guard let record = records[id], !isHeld(record) else { continue }
            if isStale(record) {
                end(id, dismissed: .invalidated, cancelled: .invalidated, refill: false)
                continue
            }
            guard var queue = takeQueue(key) else { return nil }
            queue.noteRemoved(isLive: { $0 != id && self.isQueued($0) })
            stacks[key]!.queue = queue
            return id
        }
        return nil
    }

    /// Takes the oldest waiting toast of a stack.
    mutating func popWaiting(_ key: StackKey) -> ToastID? {
        guard var queue = takeQueue(key) else { return nil }
        let next = queue.popFirst(isLive: { self.isQueued($0) })
        stacks[key]!.queue = queue
        return next
    }

    mutating func emit(_ kind: ToastEvent.Kind) {
        effects.append(.publish(ToastEvent(seq: nextSequence, time: clock, kind: kind)))
        nextSequence += 1
    }
}

extension ToastRecord {
    var sourceKey: String { toast.source ?? SchedulerStateMachine.anonymousSource }
}

extension RecordTable {
    /// The identity of a live toast, for `IdentityIndex` to check what it finds.
    func identity(of id: ToastID) -> SchedulerStateMachine.Identity? {
        self[id].flatMap { SchedulerStateMachine.Identity($0.toast) }
    }
}
