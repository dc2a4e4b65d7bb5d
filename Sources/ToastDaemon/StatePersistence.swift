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
    private var store: ToastStore?
    private let thread: NIOThreadPool?
    private(set) var mode: Mode
    private var batch = ToastStore.Batch()
    /// Steps whose writes wait for their commit (or for an earlier step's).
    private var waiting = 0
    /// Completes once every step so far has let its writes out.
    private var released: EventLoopFuture<Void>
    /// When the WAL is checkpointed: once 64 commits or 1,024 rows are in
    /// it, after a quarter of a second without a commit; at once at 256
    /// commits or 4,096 rows, as before there was a quiet checkpoint. A
    /// small commit adds about 9 KiB to the WAL, so it stays a few MiB; let
    /// to grow to 1,024 commits, every commit past the 256th was about
    /// 0.1 ms slower (docs/BENCHMARKS.md, section 3).
    private var checkpoints = CheckpointSchedule(
        whenQuiet: .init(commits: 64, rows: 1_024), atOnce: .init(commits: 256, rows: 4_096), quiet: .milliseconds(250)
    )
    private var isShutDown = false
    /// The store that failed, tried again on a back-off (`recover`).
    private var failedStore: ToastStore?
    /// How to open the store that could not be opened at start, tried on
    /// the same back-off.
    private var reopen: (@Sendable () throws -> ToastStore)?
    private var recoveryDelay = StatePersistence.firstRecoveryDelay
    /// A recovery attempt runs: changes made meanwhile are noted, to be
    /// committed after it if it succeeds.
    private var recovering = false
    static let firstRecoveryDelay = TimeAmount.seconds(1)
    static let maxRecoveryDelay = TimeAmount.seconds(60)
    /// What the daemon holds now, written whole when the store is tried again.
    var fullState: (() -> ToastStore.FullState)?
    /// Called once the store works again: the hub ends a step, so that
    /// what changed during the attempt is committed at once.
    var onRecovered: (() -> Void)?
    /// The largest step journaled on the loop, in changes (about as many
    /// as its rows).
    static let inlineChanges = 16
    /// Journaled steps not yet handed to the commit thread, and how many.
    private var unapplied = ToastStore.Batch()
    private var unappliedSteps = 0
    private var applyTimerArmed = false
    /// How many journaled steps go to the commit thread at once, and how
    /// long the first of fewer waits: the database lags the journal by
    /// no more than that, and the journal stays a few dozen KiB.
    static let applyEvery = 64
    static let applyAfter = TimeAmount.milliseconds(100)
    /// Completes when the last work handed to the commit thread has.
    private var lastJob: EventLoopFuture<Void>

    init(storage: DaemonStorage, loop: any EventLoop, logger: Logger) {
        switch storage {
        case .ephemeral:
            store = nil
            mode = .ephemeral
        case .degraded(let reason, let reopen):
            store = nil
            mode = .degraded(reason)
            self.reopen = reopen
        case .durable(let store, _):
            self.store = store
            mode = .durable
        }
        self.loop = loop
        self.logger = logger
        released = loop.makeSucceededVoidFuture()
        lastJob = released
        if self.store != nil || reopen != nil {
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            self.thread = thread
        } else {
            thread = nil
        }
        if reopen != nil { armRecovery() }
    }

    func note(_ event: ToastEvent) {
        if store != nil || recovering { batch.note(event) }
    }

    func note(_ change: ToastService.HistoryChange) {
        if store != nil || recovering { batch.note(change) }
    }

    func bind(_ source: String, _ bound: Bool) {
        if store != nil || recovering { batch.bind(source, bound) }
    }

    /// Ends a step: makes what it changed durable, then runs `prepare`
    /// (which encodes its writes) and `deliver` (which lets them out), after
    /// every earlier step's. A step committed on the commit thread is
    /// prepared there, after its commit; any other on the loop.
    func endStep<Prepared: Sendable>(
        _ scheduler: SchedulerStateMachine, prepare: @escaping @Sendable () -> Prepared,
        deliver: @escaping @Sendable (Prepared) -> Void
    ) {
        loop.preconditionInEventLoop()
        guard let store, let thread, !batch.isEmpty else {
            if waiting == 0 {
                deliver(prepare())
            } else {
                waiting += 1
                released = released.map { [self] in
                    deliver(prepare())
                    waiting -= 1
                }
            }
            return
        }
        var next = batch
        batch = ToastStore.Batch()
        next.nextID = scheduler.nextToastID
        next.lastSequence = scheduler.lastSequence
        next.pausedLevel = scheduler.pausedLevel
        next.modes = scheduler.modes
        // After this step is handed on, so a checkpoint queues behind it.
        // Its changes stand for its rows: about one row written each, counted
        // without folding the batch on the loop.
        defer { carry(checkpoints.committed(rows: next.changeCount, at: loop.now)) }
        if waiting == 0, next.changeCount <= Self.inlineChanges {
            do {
                try store.journal(next)
                unapplied.absorb(next)
                unappliedSteps += 1
            } catch {
                degrade("\(error)")
            }
            deliver(prepare())
            if unappliedSteps >= Self.applyEvery {
                applyJournaled()
            } else if unappliedSteps > 0, !applyTimerArmed {
                applyTimerArmed = true
                loop.scheduleTask(in: Self.applyAfter) { [self] in
                    applyTimerArmed = false
                    applyJournaled()
                }
            }
            return
        }
        waiting += 1
        let (step, journaled) = handOff(next)
        let committed = thread.runIfActive(eventLoop: loop) { () -> Prepared in
            try store.commit(step)
            return prepare()
        }
        lastJob = committed.map { _ in }.recover { _ in }
        let delivered = committed.map { [self] prepared in
            applied(journaled)
            return prepared
        }.flatMapErrorThrowing { [self] error in
            degrade("a commit failed: \(error)")
            return prepare()
        }
        released = released.and(delivered).map { [self] _, prepared in
            deliver(prepared)
            waiting -= 1
        }
    }

    /// The journaled steps not yet in the database, then `step` if any, as
    /// one batch for the commit thread; and the journal file they were in,
    /// to empty once that batch is committed (`applied`).
    private func handOff(_ step: ToastStore.Batch? = nil) -> (ToastStore.Batch, Int?) {
        var batch = unapplied
        unapplied = ToastStore.Batch()
        unappliedSteps = 0
        if let step { batch.absorb(step) }
        guard let store else { return (batch, nil) }
        batch.journaled = store.journal.lastNumber
        return (batch, store.journal.turn())
    }

    /// Hands the journaled steps to the commit thread.
    private func applyJournaled() {
        guard let store, let thread, unappliedSteps > 0 else { return }
        let (batch, journaled) = handOff()
        let committed = thread.runIfActive(eventLoop: loop) { try store.commit(batch) }
        // Done once the journal file is emptied too: `shutdown` waits for it.
        lastJob = committed.map { [self] in applied(journaled) }.recover { [self] error in
            if !isShutDown { degrade("a commit failed: \(error)") }
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
        guard !isShutDown else { return }
        switch action {
        case .none:
            break
        case .armTimer(let delay):
            loop.scheduleTask(in: delay) { [self] in carry(checkpoints.timerFired(at: loop.now)) }
        case .checkpoint:
            guard let store, let thread else {
                checkpoints.checkpointEnded()
                return
            }
            // The steps journaled so far go into the WAL first.
            applyJournaled()
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

    private func degrade(_ reason: String) {
        guard let failed = store else { return }
        store = nil
        failedStore = failed
        batch = ToastStore.Batch()
        unapplied = ToastStore.Batch()
        unappliedSteps = 0
        mode = .degraded(reason)
        logger.error("persistence degraded: toastd keeps serving from memory", metadata: ["reason": "\(reason)"])
        armRecovery()
    }

    private func armRecovery() {
        guard !isShutDown, failedStore != nil || reopen != nil else { return }
        let delay = recoveryDelay
        recoveryDelay = min(recoveryDelay * 2, Self.maxRecoveryDelay)
        loop.scheduleTask(in: delay) { [self] in recover() }
    }

    /// Writes the whole state over the failed store, on the commit thread;
    /// durable again if that works, else tried again later.
    private func recover() {
        guard !isShutDown, failedStore != nil || reopen != nil, let thread, let state = fullState?() else { return }
        recovering = true
        batch = ToastStore.Batch()
        let (failed, reopen) = (failedStore, reopen)
        let attempt = thread.runIfActive(eventLoop: loop) { () throws -> ToastStore in
            let store = try failed ?? reopen!()
            try store.replaceAll(state)
            return store
        }
        lastJob = attempt.map { _ in }.recover { _ in }
        attempt.whenComplete { [self] result in
            recovering = false
            switch result {
            case .success(let opened):
                guard !isShutDown else { return }
                store = opened
                failedStore = nil
                self.reopen = nil
                recoveryDelay = Self.firstRecoveryDelay
                mode = .durable
                logger.notice("persistence recovered: the state is durable again", metadata: ["toasts": "\(state.records.count)"])
                onRecovered?()
            case .failure:
                batch = ToastStore.Batch()
                armRecovery()
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
        applyJournaled()
        isShutDown = true
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
}
