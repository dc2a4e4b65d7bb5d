// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOPosix
import ToastCore
import ToastStore

/// Durable before acknowledged: the hub tells it what each step changed
/// (a read burst, a timer tick, a closed connection), and hands it the
/// writes that step produced. The changes are committed in one transaction
/// on a thread of its own, off the event loop, and only then are the
/// writes let out, in the order of the steps. A pipelined client pays one
/// commit per burst, not per line.
///
/// A small step with nothing else in flight (a single add, a tick) is made
/// durable on the event loop itself, by one record appended to the store's
/// journal (`StepJournal`): the two thread hand-offs cost more than its
/// commit, and a commit through SQLite on the loop was most of what an
/// event's latency had over its floor, and waited out every checkpoint
/// (docs/BENCHMARKS.md, section 3). The journaled steps go to the commit
/// thread in groups (`applyEvery` of them, or `applyAfter` after the first),
/// and with any step that commits there. Checkpoints, which sync the file,
/// never run on the loop: they run on the commit thread in a quiet moment
/// (`CheckpointSchedule`), after the journaled steps before them.
///
/// When the store fails (a full disk, a directory turned read-only), toastd
/// does not stop: it logs once, reports `degraded` with the reason, and
/// serves from memory. It tries the store again on a back-off (1 s, then
/// doubling up to `maxRecoveryDelay`): it writes the whole state it serves
/// (`fullState`) over the file in one transaction, and once that succeeds it
/// is durable again, logs so, and carries on with the changes made since.
///
/// In memory (`--ephemeral`) nothing is committed, but a burst's writes are
/// still encoded on that thread, and let out in step order: the loop is
/// what limits a pipelining client.
///
/// What happens with each step is decided by `PersistenceStateMachine`
/// (idle, journaling, committing, degraded); this class carries it out.
/// Confined to the hub's event loop, like the hub.
final class StatePersistence: @unchecked Sendable {
    enum Mode: Sendable, Equatable {
        case durable
        /// `--ephemeral`: kept in memory only, by request.
        case ephemeral
        /// The store failed; toastd serves from memory.
        case degraded(String)

        var name: String {
            switch self {
            case .durable: "durable"
            case .ephemeral: "ephemeral"
            case .degraded: "degraded"
            }
        }
    }

    private let loop: any EventLoop
    private let logger: Logger
    /// Decides; this class only carries out what it says.
    private var machine: PersistenceStateMachine
    private let isEphemeral: Bool
    /// The store that works, or the one that failed (tried again on the back-off).
    private var store: ToastStore?
    private let thread: NIOThreadPool?
    /// Whether a burst's writes are encoded on `thread` in memory too.
    private let encodesOffLoop: Bool
    private var batch = ToastStore.Batch()
    /// Journaled steps not yet handed to the commit thread.
    private var unapplied = ToastStore.Batch()
    /// Completes once every step so far has let its writes out.
    private var released: EventLoopFuture<Void>
    /// Completes when the last work handed to the commit thread has.
    private var lastJob: EventLoopFuture<Void>
    /// When the WAL is checkpointed: once 64 commits or 1,024 rows are in
    /// it, after a quarter of a second without a commit; at once at 256
    /// commits or 4,096 rows, as before there was a quiet checkpoint. A
    /// small commit adds about 9 KiB to the WAL, so it stays a few MiB; let
    /// to grow to 1,024 commits, every commit past the 256th was about
    /// 0.1 ms slower (docs/BENCHMARKS.md, section 3).
    private var checkpoints = CheckpointSchedule(
        whenQuiet: .init(commits: 64, rows: 1_024), atOnce: .init(commits: 256, rows: 4_096), quiet: .milliseconds(250)
    )
    /// How to open the store that could not be opened at start.
    private var reopen: (@Sendable () throws -> ToastStore)?
    static let inlineChanges = PersistenceStateMachine.inlineChanges
    static let applyEvery = PersistenceStateMachine.applyEvery
    static let applyAfter = TimeAmount.milliseconds(PersistenceStateMachine.applyAfter)
    /// What the daemon holds now, written whole when the store is tried again.
    var fullState: (() -> ToastStore.FullState)?
    /// Called once the store works again: the hub ends a step, so that
    /// what changed during the attempt is committed at once.
    var onRecovered: (() -> Void)?

    init(storage: DaemonStorage, loop: any EventLoop, logger: Logger, encodesOffLoop: Bool = true) {
        switch storage {
        case .ephemeral:
            machine = PersistenceStateMachine(durable: false)
        case .degraded(let reason, let reopen):
            machine = PersistenceStateMachine(degradedAtStart: reason)
            self.reopen = reopen
        case .durable(let store, _):
            self.store = store
            machine = PersistenceStateMachine(durable: true)
        }
        if case .memoryOnly = machine.state { isEphemeral = true } else { isEphemeral = false }
        self.loop = loop
        self.logger = logger
        released = loop.makeSucceededVoidFuture()
        lastJob = released
        // In memory too, a burst's writes are encoded on it (unless the loop
        // is a test's single-threaded EmbeddedEventLoop).
        self.encodesOffLoop = encodesOffLoop
        if store != nil || reopen != nil || encodesOffLoop {
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            self.thread = thread
        } else {
            thread = nil
        }
        if reopen != nil { armRecovery(in: PersistenceStateMachine.firstRecoveryDelay) }
    }

    var mode: Mode {
        if isEphemeral { return .ephemeral }
        if let reason = machine.degradedReason { return .degraded(reason) }
        return .durable
    }

    /// Takes note of a published event, with its toast's packed bytes when
    /// it waits (`SchedulerStateMachine.packedWaiting(after:)`).
    func note(_ event: ToastEvent, waiting packed: PackedRecord?) {
        if machine.keepsChanges { batch.note(event, waiting: packed) }
    }

    func note(_ change: ToastService.HistoryChange) {
        if machine.keepsChanges { batch.note(change) }
    }

    func bind(_ source: String, _ bound: Bool) {
        if machine.keepsChanges { batch.bind(source, bound) }
    }

    /// Ends a step: makes what it changed durable, then runs `prepare`
    /// (which encodes its writes) and `deliver` (which lets them out), after
    /// every earlier step's. A step committed on the commit thread is
    /// prepared there, after its commit, and so is a burst in memory
    /// (`writes`: how many lines it sends); any other on the loop.
    func endStep<Prepared: Sendable>(
        _ scheduler: SchedulerStateMachine, writes: Int = 0, prepare: @escaping @Sendable () -> Prepared,
        deliver: @escaping @Sendable (Prepared) -> Void
    ) {
        loop.preconditionInEventLoop()
        var next = ToastStore.Batch()
        if machine.keepsChanges, !batch.isEmpty, machine.degradedReason == nil {
            swap(&next, &batch)
            next.nextID = scheduler.nextToastID
            next.lastSequence = scheduler.lastSequence
            next.pausedLevel = scheduler.pausedLevel
            next.modes = scheduler.modes
        }
        let action = machine.stepEnded(changes: next.isEmpty ? 0 : next.changeCount, writes: encodesOffLoop ? writes : 0)
        switch action {
        case .deliver:
            deliver(prepare())
        case .deliverAfterEarlier:
            released = released.map { [self] in
                deliver(prepare())
                machine.stepReleased()
            }
        case .journal(let then):
            do {
                try store!.journal(next)
                unapplied.absorb(next)
            } catch {
                failed("\(error)")
            }
            deliver(prepare())
            switch then {
            case .none: break
            case .applyNow: applyJournaled()
            case .armTimer(let delay):
                loop.scheduleTask(in: .milliseconds(delay)) { [self] in
                    if machine.handOnJournaled() { applyJournaled() }
                }
            }
        case .commit:
            commit(next, prepare: prepare, deliver: deliver)
        case .prepareOffLoop:
            prepareOffLoop(prepare, deliver: deliver)
        }
        // After this step is handed on, so a checkpoint queues behind it.
        // Its changes stand for its rows: about one row written each, counted
        // without folding the batch on the loop.
        if !next.isEmpty { carry(checkpoints.committed(rows: next.changeCount, at: loop.now)) }
    }

    /// Commits a step, with the journaled steps before it, on the commit
    /// thread, and lets its writes out after that and every earlier step's.
    private func commit<Prepared: Sendable>(
        _ step: ToastStore.Batch, prepare: @escaping @Sendable () -> Prepared,
        deliver: @escaping @Sendable (Prepared) -> Void
    ) {
        guard let store, let thread else { preconditionFailure("a commit without a store") }
        let (batch, journaled) = handOff(step)
        let committed = thread.runIfActive(eventLoop: loop) { () -> Prepared in
            try store.commit(batch)
            return prepare()
        }
        lastJob = committed.map { _ in }.recover { _ in }
        let delivered = committed.map { [self] prepared in
            applied(journaled)
            return prepared
        }.flatMapErrorThrowing { [self] error in
            failed("a commit failed: \(error)")
            return prepare()
        }
        letOut(delivered, deliver: deliver)
    }

    /// Lets a step's writes out once they are prepared and every earlier
    /// step's are out.
    private func letOut<Prepared: Sendable>(_ prepared: EventLoopFuture<Prepared>, deliver: @escaping @Sendable (Prepared) -> Void) {
        released = released.and(prepared).map { [self] _, prepared in
            deliver(prepared)
            machine.stepReleased()
        }
    }

    /// Encodes a step's writes on the commit thread, and lets them out
    /// after every earlier step's: in memory, nothing to commit.
    private func prepareOffLoop<Prepared: Sendable>(
        _ prepare: @escaping @Sendable () -> Prepared, deliver: @escaping @Sendable (Prepared) -> Void
    ) {
        guard let thread else { preconditionFailure("encoding off the loop without a thread") }
        let encoded = thread.runIfActive(eventLoop: loop, prepare)
        lastJob = encoded.map { _ in }.recover { _ in }
        // A thread stopped under it (at shutdown): encoded here instead.
        letOut(encoded.recover { _ in prepare() }, deliver: deliver)
    }

    /// The journaled steps not yet in the database, then `step` if any, as
    /// one batch for the commit thread; and the journal file they were in,
    /// to empty once that batch is committed (`applied`).
    private func handOff(_ step: ToastStore.Batch? = nil) -> (ToastStore.Batch, Int?) {
        var batch = ToastStore.Batch()
        swap(&batch, &unapplied)
        if let step { batch.absorb(step) }
        guard let store else { return (batch, nil) }
        batch.journaled = store.journal.lastNumber
        return (batch, store.journal.turn())
    }

    /// Hands the journaled steps to the commit thread (the machine said so).
    private func applyJournaled() {
        guard let store, let thread, !unapplied.isEmpty else { return }
        let (batch, journaled) = handOff()
        let committed = thread.runIfActive(eventLoop: loop) { try store.commit(batch) }
        // Done once the journal file is emptied too: `shutdown` waits for it.
        lastJob = committed.map { [self] in applied(journaled) }.recover { [self] error in
            failed("a commit failed: \(error)")
        }
    }

    /// A batch with `journaled`'s records is in the database: empties the
    /// journal file they were in.
    private func applied(_ journaled: Int?) {
        guard let journaled, let store else { return }
        do {
            try store.journal.empty(journaled)
        } catch {
            logger.warning("the journal could not be emptied", metadata: ["reason": "\(error)"])
        }
    }

    /// Carries out what the checkpoint schedule asks: a timer, or a
    /// checkpoint on the commit thread (commits queue behind it there until
    /// it ends).
    private func carry(_ action: CheckpointSchedule.Action) {
        // A quiet timer may fire after `shutdown`, with the thread gone.
        guard !machine.isStopped else { return }
        switch action {
        case .none:
            break
        case .armTimer(let delay):
            loop.scheduleTask(in: delay) { [self] in carry(checkpoints.timerFired(at: loop.now)) }
        case .checkpoint:
            guard let store, let thread, machine.degradedReason == nil else {
                checkpoints.checkpointEnded()
                return
            }
            if machine.handOnJournaled() { applyJournaled() }
            let checkpoint = thread.runIfActive(eventLoop: loop) { try store.checkpointWAL() }
            lastJob = checkpoint.recover { _ in }
            checkpoint.whenComplete { [self] result in
                checkpoints.checkpointEnded()
                if case .failure(let error) = result { logger.warning("a WAL checkpoint failed", metadata: ["reason": "\(error)"]) }
            }
        }
    }

    /// Completes when every step so far has been committed and delivered.
    var idle: EventLoopFuture<Void> { released }

    /// A journal append or a commit failed: degraded, unless it already is.
    private func failed(_ reason: String) {
        guard case .degrade(let retry) = machine.failed(reason) else { return }
        batch = ToastStore.Batch()
        unapplied = ToastStore.Batch()
        logger.error("persistence degraded: toastd keeps serving from memory", metadata: ["reason": "\(reason)"])
        armRecovery(in: retry)
    }

    private func armRecovery(in delay: PersistenceStateMachine.Milliseconds) {
        loop.scheduleTask(in: .milliseconds(delay)) { [self] in recover() }
    }

    /// Writes the whole state over the failed store, on the commit thread;
    /// durable again if that works, else tried again later.
    private func recover() {
        guard let thread, let fullState, machine.recoveryTimerFired() else { return }
        let state = fullState()
        batch = ToastStore.Batch()
        let (failed, reopen) = (store, reopen)
        let attempt = thread.runIfActive(eventLoop: loop) { () throws -> ToastStore in
            let store = try failed ?? reopen!()
            try store.replaceAll(state)
            return store
        }
        lastJob = attempt.map { _ in }.recover { _ in }
        attempt.whenComplete { [self] result in
            guard !machine.isStopped else { return }
            switch result {
            case .success(let opened):
                store = opened
                self.reopen = nil
                machine.recovered()
                logger.notice("persistence recovered: the state is durable again", metadata: ["toasts": "\(state.records.count)"])
                onRecovered?()
            case .failure:
                batch = ToastStore.Batch()
                if let retry = machine.recoveryFailed() { armRecovery(in: retry) }
            }
        }
    }

    /// Puts the journaled steps in the database and empties the journal,
    /// then stops the commit thread; the future completes, on the loop,
    /// once it has. (A process that ends before then, killed, leaves them
    /// in the journal, which the next start applies.) It once returned at
    /// once, and toastd left while the last commit ran: its completion
    /// found the event loop closed, swift-nio printed an error on every
    /// stop, and the next start had the journal to apply again.
    func shutdown() -> EventLoopFuture<Void> {
        if machine.shutdown() { applyJournaled() }
        guard let thread else { return lastJob }
        return lastJob.flatMap { [loop] in
            let stopped = loop.makePromise(of: Void.self)
            thread.shutdownGracefully { _ in stopped.succeed() }
            return stopped.futureResult
        }
    }
}

/// Where a daemon keeps its state.
public enum DaemonStorage: Sendable {
    /// In memory only (`--ephemeral`).
    case ephemeral
    /// In a store, with what it held at start.
    case durable(ToastStore, ToastStore.Loaded)
    /// The store could not be used; in memory, with the reason, and how to
    /// open it again (tried on a back-off: a disk that was full at start).
    case degraded(String, reopen: (@Sendable () throws -> ToastStore)? = nil)

    /// The same storage once the hub holds what it restored: the restored
    /// toasts and history left out, since the scheduler and the history
    /// keep their own copies. Kept, they doubled a restart's memory (100,000
    /// live toasts: 89 MiB anonymous after a restart, 37 before it).
    public var handedOver: DaemonStorage {
        guard case .durable(let store, var loaded) = self else { return self }
        loaded.scheduler = SchedulerStateMachine()
        loaded.history = []
        return .durable(store, loaded)
    }
}
