// SPDX-License-Identifier: Apache-2.0
import NIOCore
import Testing

@testable import ToastDaemon

/// On a virtual clock: every instant is passed in.
@Suite("When the WAL is checkpointed")
struct CheckpointScheduleTests {
    static func schedule() -> CheckpointSchedule {
        CheckpointSchedule(whenQuiet: .init(commits: 4, rows: 100), atOnce: .init(commits: 10, rows: 400), quiet: .milliseconds(250))
    }

    static func at(_ milliseconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(milliseconds) * 1_000_000) }

    /// Commits one step of `rows` rows every `every` ms from `start`; the actions asked for.
    static func commit(
        _ count: Int, rows: Int = 1, from start: Int64 = 0, every: Int64 = 10, on schedule: inout CheckpointSchedule
    ) -> [CheckpointSchedule.Action] {
        (0..<count).map { index in schedule.committed(rows: rows, at: at(start + Int64(index) * every)) }
    }

    @Test func enoughWrittenArmsTheTimerOnce() {
        var schedule = Self.schedule()
        #expect(Self.commit(3, on: &schedule) == [.none, .none, .none])
        #expect(schedule.committed(rows: 1, at: Self.at(30)) == .armTimer(.milliseconds(250)), "the 4th commit")
        #expect(Self.commit(3, from: 40, on: &schedule) == [.none, .none, .none], "armed already")
        var byRows = Self.schedule()
        #expect(byRows.committed(rows: 100, at: Self.at(0)) == .armTimer(.milliseconds(250)), "or 100 rows in one step")
    }

    /// The checkpoint runs once a quarter of a second has passed since the
    /// last commit, however the bursts fall against the timer: the timer
    /// looks again exactly when the quiet interval after the last commit ends.
    @Test func theCheckpointRunsAfterAQuietInterval() {
        var schedule = Self.schedule()
        _ = Self.commit(4, on: &schedule)  // 0...30 ms: armed at 30
        _ = Self.commit(5, from: 200, every: 20, on: &schedule)  // the last at 280 ms
        #expect(schedule.timerFired(at: Self.at(280)) == .armTimer(.milliseconds(250)), "a commit just now")
        #expect(schedule.timerFired(at: Self.at(530)) == .checkpoint, "250 ms since the last")
        #expect(schedule.isRunning)
        #expect((schedule.commits, schedule.rows) == (0, 0), "counted afresh from its start")
        #expect(schedule.timerFired(at: Self.at(1_000)) == .none, "no timer is armed")

        var late = Self.schedule()
        _ = Self.commit(4, on: &late)
        _ = late.committed(rows: 1, at: Self.at(100))
        #expect(late.timerFired(at: Self.at(280)) == .armTimer(.milliseconds(70)), "quiet since 100 ms: 70 ms to go")
        #expect(late.timerFired(at: Self.at(350)) == .checkpoint)
    }

    /// A stream that never pauses still gets a checkpoint, at the bound.
    @Test func aStreamWithNoQuietMomentIsCheckpointedAtTheBound() {
        var schedule = Self.schedule()
        let actions = Self.commit(10, on: &schedule)
        #expect(actions[3] == .armTimer(.milliseconds(250)))
        #expect(actions[9] == .checkpoint, "the 10th commit")
        #expect(actions.filter { $0 == .checkpoint }.count == 1)
        #expect(schedule.timerFired(at: Self.at(280)) == .none, "the timer armed before finds the checkpoint begun")
        var byRows = Self.schedule()
        #expect(Self.commit(2, rows: 200, on: &byRows) == [.armTimer(.milliseconds(250)), .checkpoint], "or at 400 rows")
    }

    /// Commits during a checkpoint count towards the next, which they arm
    /// only once it has ended.
    @Test func commitsDuringACheckpointCountTowardsTheNext() {
        var schedule = Self.schedule()
        _ = Self.commit(10, on: &schedule)  // armed at 30 ms, begun at 90
        #expect(schedule.isRunning)
        #expect(Self.commit(5, from: 100, on: &schedule) == Array(repeating: .none, count: 5), "running: nothing more is asked")
        #expect(schedule.timerFired(at: Self.at(280)) == .none, "the timer fires into the running checkpoint and is gone")
        schedule.checkpointEnded()
        #expect(!schedule.isRunning)
        #expect(schedule.commits == 5)
        #expect(schedule.committed(rows: 1, at: Self.at(300)) == .armTimer(.milliseconds(250)), "6 since it began")
        #expect(schedule.timerFired(at: Self.at(550)) == .checkpoint)

        // Ended before the timer fired: the timer finds the commits due.
        var early = Self.schedule()
        _ = Self.commit(10, on: &early)
        _ = Self.commit(5, from: 100, on: &early)  // the last at 140 ms
        early.checkpointEnded()
        #expect(early.timerFired(at: Self.at(280)) == .armTimer(.milliseconds(110)))
        #expect(early.timerFired(at: Self.at(390)) == .checkpoint)
    }
}
