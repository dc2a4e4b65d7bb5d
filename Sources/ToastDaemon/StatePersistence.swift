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
/// A small step with nothing else in flight (a single add, a tick) is
/// committed on the event loop itself: the two thread hand-offs cost more
/// than its commit, and they were most of an event's latency with durable
/// state (docs/BENCHMARKS.md, fan-out). Checkpoints, which sync the file,
/// never run on the loop: they run on the commit thread in a quiet moment
/// (`CheckpointSchedule`), and no step commits on the loop while one does.
///
/// When the store fails (a full disk, a directory turned read-only), toastd
/// does not stop: it logs once, reports `degraded` with the reason, and
/// serves from memory from then on.
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
    /// The largest step committed on the loop, in changes (about as many
    /// as its rows).
    static let inlineChanges = 16

    init(storage: DaemonStorage, loop: any EventLoop, logger: Logger) {
        switch storage {
        case .ephemeral:
            store = nil
            mode = .ephemeral
        case .degraded(let reason):
            store = nil
            mode = .degraded(reason)
        case .durable(let store, _):
            self.store = store
            mode = .durable
        }
        self.loop = loop
        self.logger = logger
        released = loop.makeSucceededVoidFuture()
        if self.store != nil {
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            self.thread = thread
        } else {
            thread = nil
        }
    }

    func note(_ event: ToastEvent) {
        if store != nil { batch.note(event) }
    }

    func note(_ change: ToastService.HistoryChange) {
        if store != nil { batch.note(change) }
    }

    func bind(_ source: String, _ bound: Bool) {
        if store != nil { batch.bind(source, bound) }
    }

    /// Ends a step: commits what it changed, then runs `prepare` (which
    /// encodes its writes) and `deliver` (which lets them out), after every
    /// earlier step's. A step committed on the commit thread is prepared
    /// there, after its commit; any other on the loop.
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
        let step = next
        // After this step's commit is under way, so a checkpoint queues behind it.
        // Its changes stand for its rows: about one row written each, counted
        // without folding the batch on the loop.
        defer { carry(checkpoints.committed(rows: step.changeCount, at: loop.now)) }
        if waiting == 0, !checkpoints.isRunning, step.changeCount <= Self.inlineChanges {
            do {
                try store.commit(step)
            } catch {
                degrade("a commit failed: \(error)")
            }
            deliver(prepare())
            return
        }
        waiting += 1
        let committed = thread.runIfActive(eventLoop: loop) { () -> Prepared in
            try store.commit(step)
            return prepare()
        }.flatMapErrorThrowing { [self] error in
            degrade("a commit failed: \(error)")
            return prepare()
        }
        released = released.and(committed).map { [self] _, prepared in
            deliver(prepared)
            waiting -= 1
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
            thread.runIfActive(eventLoop: loop) { try store.checkpointWAL() }.whenComplete { [self] result in
                checkpoints.checkpointEnded()
                if case .failure(let error) = result { logger.warning("a WAL checkpoint failed", metadata: ["reason": "\(error)"]) }
            }
        }
    }

    /// Completes when every step so far has been committed and delivered.
    var idle: EventLoopFuture<Void> { released }

    private func degrade(_ reason: String) {
        guard store != nil else { return }
        store = nil
        mode = .degraded(reason)
        logger.error("persistence degraded: toastd keeps serving from memory", metadata: ["reason": "\(reason)"])
    }

    /// Stops the commit thread once the last steps are out.
    func shutdown() {
        isShutDown = true
        thread?.shutdownGracefully { _ in }
    }
}

/// Where a daemon keeps its state.
public enum DaemonStorage: Sendable {
    /// In memory only (`--ephemeral`).
    case ephemeral
    /// In a store, with what it held at start.
    case durable(ToastStore, ToastStore.Loaded)
    /// The store could not be used; in memory, with the reason.
    case degraded(String)
}
