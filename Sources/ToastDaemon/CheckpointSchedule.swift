// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// When the store's WAL is checkpointed.
///
/// A checkpoint copies the WAL into the database file and syncs it, and no
/// commit can run while it does (the store has one connection): when every
/// step committed through SQLite, the step after it waited 6–15 ms on this
/// machine, one add in 256 (docs/BENCHMARKS.md, section 3). Small steps are
/// journaled now and never wait for it, but a burst committed on the commit
/// thread, and the journaled steps' groups, still do. So a checkpoint waits for a quiet
/// moment: once `whenQuiet` has been written, it runs as soon as `quiet`
/// has passed without a commit. Only a stream with no such pause that
/// writes `atOnce` gets one at once, which bounds the WAL.
///
/// A pure value, like `BurstTrim`, with the time passed in: `StatePersistence`
/// keeps it, arms the timer it asks for and runs the checkpoints it calls for.
struct CheckpointSchedule: Sendable {
    struct Threshold: Sendable {
        var commits: Int
        var rows: Int

        func isReached(commits: Int, rows: Int) -> Bool { commits >= self.commits || rows >= self.rows }
    }

    enum Action: Equatable, Sendable {
        case none
        /// Call `timerFired` after this long.
        case armTimer(TimeAmount)
        /// Start a checkpoint now, and call `checkpointEnded` when it has.
        case checkpoint
    }

    /// Enough written to be worth a sync in a quiet moment.
    let whenQuiet: Threshold
    /// Too much to wait for one.
    let atOnce: Threshold
    /// How long without a commit makes a quiet moment.
    let quiet: TimeAmount
    /// Commits and rows since the last checkpoint began.
    private(set) var commits = 0
    private(set) var rows = 0
    private var lastCommit = NIODeadline.uptimeNanoseconds(0)
    private var timerArmed = false
    private(set) var isRunning = false

    init(whenQuiet: Threshold, atOnce: Threshold, quiet: TimeAmount) {
        precondition(whenQuiet.commits <= atOnce.commits && whenQuiet.rows <= atOnce.rows, "a quiet checkpoint comes before a forced one")
        self.whenQuiet = whenQuiet
        self.atOnce = atOnce
        self.quiet = quiet
    }

    private var isDueWhenQuiet: Bool { whenQuiet.isReached(commits: commits, rows: rows) }

    /// A step committed `rows` rows at `now`.
    mutating func committed(rows: Int, at now: NIODeadline) -> Action {
        commits += 1
        self.rows += rows
        lastCommit = now
        guard !isRunning else { return .none }
        if atOnce.isReached(commits: commits, rows: self.rows) { return start() }
        guard !timerArmed, isDueWhenQuiet else { return .none }
        timerArmed = true
        return .armTimer(quiet)
    }

    /// The timer armed by `.armTimer` fired at `now`.
    mutating func timerFired(at now: NIODeadline) -> Action {
        guard timerArmed else { return .none }
        timerArmed = false
        // A checkpoint began at once since (and reset the counts), or runs:
        // the next commit that makes one due arms the timer again.
        guard !isRunning, isDueWhenQuiet else { return .none }
        let quietFor = now - lastCommit
        guard quietFor >= quiet else {
            timerArmed = true
            return .armTimer(quiet - quietFor)
        }
        return start()
    }

    mutating func checkpointEnded() {
        isRunning = false
    }

    private mutating func start() -> Action {
        commits = 0
        rows = 0
        isRunning = true
        return .checkpoint
    }
}
