// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastProtocol

@testable import ToastKit

/// The one resuming subscription every client drives (issue #39): what it
/// does for each thing that happens, in process, with no socket and no clock.
@Suite("Subscription state machine")
struct SubscriptionStateMachineTests {
    static let record = ToastRecord(id: 1, toast: Toast(message: "m"), state: .shown, repeatCount: 1, createdAt: 1, presentedAt: 1)
    static func presented(_ seq: UInt64) -> ServerLine { .event(ToastEvent(seq: seq, time: 1, kind: .presented(record))) }
    static let subscribed = ServerLine.reply(ref: nil, .success(["subscribed": true, "instance": "i"]))

    @Test func itConnectsSubscribesDeliversAndResumesWhereItStopped() {
        var machine = SubscriptionStateMachine(filter: EventFilter(scene: "work"))
        #expect(machine.start() == .connect)
        #expect(machine.connected() == .send(["op": "subscribe", "scene": "work"]))
        #expect(machine.received(Self.subscribed) == .deliver(Self.subscribed))
        #expect(machine.received(Self.presented(7)) == .deliver(Self.presented(7)))
        // toastd goes away: waits, doubling, then resumes after seq 7 of instance i.
        #expect(machine.failed(.disconnected("gone")) == .wait(milliseconds: 250))
        #expect(machine.timerFired() == .connect)
        #expect(machine.failed(.disconnected("refused")) == .wait(milliseconds: 500))
        #expect(machine.timerFired() == .connect)
        #expect(machine.connected() == .send(["op": "subscribe", "scene": "work", "since": 7, "instance": "i"]))
        // An answered subscription starts the wait over.
        #expect(machine.received(Self.subscribed) == .deliver(Self.subscribed))
        #expect(machine.failed(.disconnected("gone")) == .wait(milliseconds: 250))
    }

    @Test func theWaitDoublesUpToFiveSeconds() {
        var machine = SubscriptionStateMachine()
        _ = machine.start()
        var waits: [Int64] = []
        for _ in 0..<8 {
            if case .wait(let milliseconds) = machine.failed(.disconnected("down")) { waits.append(milliseconds) }
            _ = machine.timerFired()
        }
        #expect(waits == [250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000])
    }

    @Test func anImpostorOrARefusalStopsForGood() {
        var machine = SubscriptionStateMachine()
        _ = machine.start()
        #expect(machine.failed(.impostor("uid 7")) == .stop(.impostor("uid 7")))
        #expect(machine.timerFired() == .none && machine.start() == .none && machine.isStopped)

        var refused = SubscriptionStateMachine()
        _ = refused.start()
        _ = refused.connected()
        let error = ToastError(.invalidField, "bad scene", field: "scene")
        #expect(refused.received(.reply(ref: nil, .failure(error))) == .stop(.refused(error)))
    }

    /// Lines out of turn are passed over: a line before the reply, a reply
    /// while streaming; a snapshot and the notices move the position.
    @Test func linesOutOfTurnArePassedOver() {
        var machine = SubscriptionStateMachine(snapshot: false)
        _ = machine.start()
        #expect(machine.received(Self.presented(1)) == .none, "not connected yet")
        #expect(machine.connected() == .send(["op": "subscribe", "snapshot": false]))
        #expect(machine.received(Self.presented(2)) == .none, "before the reply")
        _ = machine.received(Self.subscribed)
        #expect(machine.received(Self.subscribed) == .none)
        let lagged = ServerLine.lagged(seq: 40, time: 1, dropped: 30)
        #expect(machine.received(lagged) == .deliver(lagged))
        #expect(machine.position.sequence == 40)
    }
}
