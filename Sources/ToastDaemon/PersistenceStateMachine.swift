// SPDX-License-Identifier: Apache-2.0
/// What persistence does with each step, decided without I/O: the states
/// are idle, journaling, committing and degraded (and in memory by request,
/// and stopped), and every input returns the action that `StatePersistence`
/// carries out. The swift-nio way (`NIOTypedHTTPServerUpgraderStateMachine`):
/// the counts live inside the states, so "journaled steps wait while a
/// commit is in flight" cannot be written down.
///
/// - idle: the store is in step with what was served.
/// - journaling: steps were made durable by a journal record on the loop
///   and wait to go to the commit thread, in a group (`applyEvery`) or
///   after `applyAfter`.
/// - committing: steps wait for a commit on the commit thread; a step that
///   ends meanwhile waits behind them, even one that changed nothing, so
///   writes leave in the order of the steps.
/// - degraded: the store failed; toastd serves from memory and tries it
///   again after `retry`, doubling to `maxRecoveryDelay`.
struct PersistenceStateMachine: Sendable, Equatable {
    enum State: Sendable, Equatable {
        /// `--ephemeral`: nothing is written, by request. `preparing`:
        /// steps whose writes are encoded on the commit thread, or wait
        /// behind one that is, not yet let out.
        case memoryOnly(preparing: Int)
        case idle
        /// Its apply timer is armed: entering this state arms it, and only
        /// its firing (or a hand-on) leaves it.
        case journaling(steps: Int)
        case committing(waiting: Int)
        /// `waiting`: steps of commits that were in flight when it failed,
        /// still to be let out; `attempting`: a recovery runs now.
        case degraded(reason: String, waiting: Int, retry: Milliseconds, attempting: Bool)
        case stopped
    }

    typealias Milliseconds = Int64

    /// The largest step journaled on the loop, in changes (about as many as its rows).
    static let inlineChanges = 16
    /// How many journaled steps go to the commit thread at once, and how long
    /// the first of fewer waits: the database lags the journal by no more
    /// than that, and the journal stays a few dozen KiB.
    static let applyEvery = 64
    static let applyAfter: Milliseconds = 100
    static let firstRecoveryDelay: Milliseconds = 1_000
    static let maxRecoveryDelay: Milliseconds = 60_000

    private(set) var state: State

    init(durable: Bool) {
        state = durable ? .idle : .memoryOnly(preparing: 0)
    }

    /// A store that could not be opened at start, tried again after
    /// `firstRecoveryDelay` (the caller arms that first timer).
    init(degradedAtStart reason: String) {
        state = .degraded(reason: reason, waiting: 0, retry: Self.firstRecoveryDelay * 2, attempting: false)
    }

    /// What a step's changes become.
    enum StepAction: Sendable, Equatable {
        /// Let its writes out now: nothing waits before it.
        case deliver
        /// Let its writes out after the steps that wait before it.
        case deliverAfterEarlier
        /// Append it to the journal, let its writes out, then `then`.
        case journal(then: Apply)
        /// Commit it, with the journaled steps before it, on the commit
        /// thread; its writes leave after that commit and every earlier step.
        case commit
        /// Encode its writes on the commit thread (nothing to commit); they
        /// leave after every earlier step's.
        case prepareOffLoop
    }

    enum Apply: Sendable, Equatable {
        case none
        /// Hand the journaled steps to the commit thread now.
        case applyNow
        /// Hand them on after this many milliseconds (`applyTimerFired`).
        case armTimer(Milliseconds)
    }

    /// Whether a step's changes are gathered at all: when they can be
    /// written, and during a recovery, to be committed after it.
    var keepsChanges: Bool {
        switch state {
        case .idle, .journaling, .committing: true
        case .degraded(_, _, _, let attempting): attempting
        case .memoryOnly, .stopped: false
        }
    }

    /// A step ended that changed `changes` rows' worth (0: nothing to write)
    /// and has `writes` lines to send.
    mutating func stepEnded(changes: Int, writes: Int = 0) -> StepAction {
        switch state {
        case .memoryOnly(let preparing):
            // A burst's writes are encoded off the loop, and so are those of
            // every step that ends while one is, as a durable burst's are
            // after its commit: with a pipelining client the loop is what
            // limits it, and in memory it encoded every reply itself
            // (docs/BENCHMARKS.md, "In memory, encoded off the loop").
            if writes > Self.inlineChanges || (preparing > 0 && writes > 0) {
                state = .memoryOnly(preparing: preparing + 1)
                return .prepareOffLoop
            }
            guard preparing > 0 else { return .deliver }
            state = .memoryOnly(preparing: preparing + 1)
            return .deliverAfterEarlier
        case .stopped:
            return .deliver
        case .idle:
            if changes == 0 { return .deliver }
            if changes <= Self.inlineChanges {
                state = .journaling(steps: 1)
                return .journal(then: .armTimer(Self.applyAfter))
            }
            state = .committing(waiting: 1)
            return .commit
        case .journaling(let steps):
            if changes == 0 { return .deliver }
            if changes > Self.inlineChanges {
                state = .committing(waiting: 1)
                return .commit
            }
            if steps + 1 >= Self.applyEvery {
                state = .idle
                return .journal(then: .applyNow)
            }
            state = .journaling(steps: steps + 1)
            return .journal(then: .none)
        case .committing(let waiting):
            state = .committing(waiting: waiting + 1)
            return changes == 0 ? .deliverAfterEarlier : .commit
        case .degraded(let reason, let waiting, let retry, let attempting):
            if waiting == 0 { return .deliver }
            state = .degraded(reason: reason, waiting: waiting + 1, retry: retry, attempting: attempting)
            return .deliverAfterEarlier
        }
    }

    /// A step that waited (committed, or behind one) let its writes out.
    mutating func stepReleased() {
        switch state {
        case .committing(let waiting):
            state = waiting > 1 ? .committing(waiting: waiting - 1) : .idle
        case .degraded(let reason, let waiting, let retry, let attempting):
            state = .degraded(reason: reason, waiting: max(waiting - 1, 0), retry: retry, attempting: attempting)
        case .memoryOnly(let preparing):
            state = .memoryOnly(preparing: max(preparing - 1, 0))
        case .idle, .journaling, .stopped:
            break
        }
    }

    /// The apply timer fired, or a checkpoint is due (the journaled steps
    /// go into the WAL first), or the daemon stops: whether there are
    /// journaled steps to hand to the commit thread now. A timer armed by
    /// an earlier run of journaling that fires in a later one hands that
    /// one on early, which is only sooner.
    mutating func handOnJournaled() -> Bool {
        guard case .journaling = state else { return false }
        state = .idle
        return true
    }

    enum Failure: Sendable, Equatable {
        /// Log it, drop what was gathered, and try again after this long.
        case degrade(retryIn: Milliseconds)
        /// Already degraded (another commit in flight failed too): nothing more.
        case ignore
    }

    /// A journal append or a commit failed.
    mutating func failed(_ reason: String) -> Failure {
        let waiting: Int
        switch state {
        case .idle, .journaling: waiting = 0
        case .committing(let count): waiting = count
        case .memoryOnly, .degraded, .stopped: return .ignore
        }
        let retry = Self.firstRecoveryDelay
        state = .degraded(reason: reason, waiting: waiting, retry: min(retry * 2, Self.maxRecoveryDelay), attempting: false)
        return .degrade(retryIn: retry)
    }

    /// The recovery timer fired: whether to try the store again now.
    mutating func recoveryTimerFired() -> Bool {
        guard case .degraded(let reason, let waiting, let retry, false) = state else { return false }
        state = .degraded(reason: reason, waiting: waiting, retry: retry, attempting: true)
        return true
    }

    /// The store took the whole state again: durable once more.
    mutating func recovered() {
        guard case .degraded(_, let waiting, _, true) = state else { return }
        state = waiting > 0 ? .committing(waiting: waiting) : .idle
    }

    /// The attempt failed: how long until the next.
    mutating func recoveryFailed() -> Milliseconds? {
        guard case .degraded(let reason, let waiting, let retry, true) = state else { return nil }
        state = .degraded(reason: reason, waiting: waiting, retry: min(retry * 2, Self.maxRecoveryDelay), attempting: false)
        return retry
    }

    /// The daemon stops: whether journaled steps are left to hand on.
    /// Nothing is decided after this.
    mutating func shutdown() -> Bool {
        let journaled = handOnJournaled()
        state = .stopped
        return journaled
    }

    var isStopped: Bool { state == .stopped }

    /// The reason persistence is degraded, if it is.
    var degradedReason: String? {
        if case .degraded(let reason, _, _, _) = state { return reason }
        return nil
    }
}
