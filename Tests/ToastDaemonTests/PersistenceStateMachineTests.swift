// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastDaemon

@Suite("PersistenceStateMachine: what each step becomes, without I/O")
struct PersistenceStateMachineTests {
    typealias Machine = PersistenceStateMachine

    @Test("small steps are journaled: the first arms the apply timer, the 64th hands the group on")
    func journalGroups() {
        var machine = Machine(durable: true)
        let action1 = machine.stepEnded(changes: 0)
        #expect(action1 == .deliver, "a step that changed nothing waits for nothing")
        let action2 = machine.stepEnded(changes: 1)
        #expect(action2 == .journal(then: .armTimer(Machine.applyAfter)))
        for steps in 2..<Machine.applyEvery {
            let action3 = machine.stepEnded(changes: Machine.inlineChanges)
            #expect(action3 == .journal(then: .none))
            #expect(machine.state == .journaling(steps: steps))
        }
        let action4 = machine.stepEnded(changes: 3)
        #expect(action4 == .journal(then: .applyNow))
        #expect(machine.state == .idle)
        let handedOn1 = machine.handOnJournaled()
        #expect(!handedOn1, "the timer of that group finds nothing left")
    }

    @Test("a large step commits, and steps behind it wait in order, even empty ones")
    func commitsQueue() {
        var machine = Machine(durable: true)
        let action5 = machine.stepEnded(changes: 2)
        #expect(action5 == .journal(then: .armTimer(Machine.applyAfter)))
        let action6 = machine.stepEnded(changes: Machine.inlineChanges + 1)
        #expect(action6 == .commit, "takes the journaled steps with it")
        let action7 = machine.stepEnded(changes: 0)
        #expect(action7 == .deliverAfterEarlier)
        let action8 = machine.stepEnded(changes: 1)
        #expect(action8 == .commit, "no journaling while a commit is in flight")
        #expect(machine.state == .committing(waiting: 3))
        let handedOn2 = machine.handOnJournaled()
        #expect(!handedOn2, "the first step's timer has nothing to hand on")
        machine.stepReleased()
        machine.stepReleased()
        #expect(machine.state == .committing(waiting: 1))
        machine.stepReleased()
        #expect(machine.state == .idle)
        let action9 = machine.stepEnded(changes: 1)
        #expect(action9 == .journal(then: .armTimer(Machine.applyAfter)))
    }

    @Test("a failure degrades once; steps still in flight drain in order; the back-off doubles to a minute")
    func degradeAndBackOff() {
        var machine = Machine(durable: true)
        _ = machine.stepEnded(changes: 100)
        _ = machine.stepEnded(changes: 100)
        let failure1 = machine.failed("disk full")
        #expect(failure1 == .degrade(retryIn: Machine.firstRecoveryDelay))
        let failure2 = machine.failed("disk full again")
        #expect(failure2 == .ignore, "the second commit in flight fails too")
        #expect(machine.degradedReason == "disk full")
        #expect(!machine.keepsChanges, "nothing is gathered while nothing can be written")
        let action10 = machine.stepEnded(changes: 5)
        #expect(action10 == .deliverAfterEarlier, "two commits' writes are still to leave")
        machine.stepReleased()
        machine.stepReleased()
        machine.stepReleased()
        let action11 = machine.stepEnded(changes: 5)
        #expect(action11 == .deliver)
        var delays: [Machine.Milliseconds] = []
        for _ in 0..<8 {
            let attempts1 = machine.recoveryTimerFired()
            #expect(attempts1)
            #expect(machine.keepsChanges, "changes made during an attempt are kept for after it")
            let attempts2 = machine.recoveryTimerFired()
            #expect(!attempts2, "one attempt at a time")
            delays.append(machine.recoveryFailed() ?? -1)
        }
        #expect(delays == [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000])
        let attempts3 = machine.recoveryTimerFired()
        #expect(attempts3)
        machine.recovered()
        #expect(machine.state == .idle)
        #expect(machine.degradedReason == nil)
    }

    @Test("a store that failed at start is tried after a second, then on the doubling back-off")
    func degradedAtStart() {
        var machine = Machine(degradedAtStart: "read-only")
        #expect(machine.degradedReason == "read-only")
        let action12 = machine.stepEnded(changes: 3)
        #expect(action12 == .deliver)
        let attempts4 = machine.recoveryTimerFired()
        #expect(attempts4)
        let nextDelay1 = machine.recoveryFailed()
        #expect(nextDelay1 == 2_000)
    }

    @Test("a recovery while commits still drain gives back the committing state")
    func recoveryWithWaiting() {
        var machine = Machine(durable: true)
        _ = machine.stepEnded(changes: 100)
        _ = machine.failed("EIO")
        let attempts5 = machine.recoveryTimerFired()
        #expect(attempts5)
        machine.recovered()
        #expect(machine.state == .committing(waiting: 1))
    }

    @Test("in memory, a burst's writes are encoded off the loop, and steps after it wait their turn")
    func memoryOnlyBursts() {
        var machine = Machine(durable: false)
        #expect(machine.stepEnded(changes: 0, writes: Machine.inlineChanges) == .deliver)
        #expect(machine.stepEnded(changes: 0, writes: Machine.inlineChanges + 1) == .prepareOffLoop)
        #expect(machine.stepEnded(changes: 0, writes: 1) == .prepareOffLoop, "a small step behind the burst")
        #expect(machine.stepEnded(changes: 0, writes: 0) == .deliverAfterEarlier, "nothing to encode, but it waits its turn")
        #expect(machine.stepEnded(changes: 0, writes: 500) == .prepareOffLoop)
        #expect(machine.state == .memoryOnly(preparing: 4))
        #expect(!machine.keepsChanges)
        for _ in 0..<4 { machine.stepReleased() }
        #expect(machine.state == .memoryOnly(preparing: 0))
        #expect(machine.stepEnded(changes: 0, writes: 1) == .deliver)
        machine.stepReleased()
        #expect(machine.state == .memoryOnly(preparing: 0), "never below nothing")
    }

    @Test("in memory by request, and after a stop, every step leaves at once and nothing is kept")
    func memoryOnlyAndStopped() {
        var ephemeral = Machine(durable: false)
        let action13 = ephemeral.stepEnded(changes: 500)
        #expect(action13 == .deliver)
        #expect(!ephemeral.keepsChanges)
        let failure3 = ephemeral.failed("x")
        #expect(failure3 == .ignore)
        var machine = Machine(durable: true)
        _ = machine.stepEnded(changes: 1)
        let leftJournaled1 = machine.shutdown()
        #expect(leftJournaled1, "the journaled step is handed on at the stop")
        let action14 = machine.stepEnded(changes: 1)
        #expect(action14 == .deliver)
        #expect(!machine.keepsChanges)
        let failure4 = machine.failed("late")
        #expect(failure4 == .ignore, "a failure during the stop degrades nothing")
        let attempts6 = machine.recoveryTimerFired()
        #expect(!attempts6)
    }
}
