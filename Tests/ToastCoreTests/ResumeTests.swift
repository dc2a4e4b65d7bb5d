// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// `subscribe` with `since`: the backlog ring, and the service's answer.
@Suite("Resumable subscriptions")
struct ResumeTests {
    static func event(_ seq: UInt64, scene: String = "default") -> ToastEvent {
        let record = ToastRecord(
            id: seq, toast: Toast(message: "m\(seq)", scene: scene), state: .shown, repeatCount: 1, createdAt: 0,
            presentedAt: 0, expiresAt: nil
        )
        return ToastEvent(seq: seq, time: 0, kind: .presented(record))
    }

    static func seqs(_ entries: [EventBacklog.Entry]?) -> [UInt64]? { entries?.map(\.seq) }

    @Test func theRingReplaysWhatFollowsSinceAndForgetsTheOldest() {
        var backlog = EventBacklog(capacity: 4)
        for seq: UInt64 in 1...6 { backlog.append(Self.event(seq, scene: seq % 2 == 0 ? "even" : "odd"), line: []) }
        #expect(backlog.count == 4)
        #expect(backlog.oldestSequence == 3)
        #expect(Self.seqs(backlog.events(after: 2, lastSequence: 6, matching: EventFilter())) == [3, 4, 5, 6])
        #expect(Self.seqs(backlog.events(after: 4, lastSequence: 6, matching: EventFilter())) == [5, 6])
        #expect(Self.seqs(backlog.events(after: 3, lastSequence: 6, matching: EventFilter(scene: "even"))) == [4, 6])
        #expect(Self.seqs(backlog.events(after: 6, lastSequence: 6, matching: EventFilter())) == [])
        // Event 2 is gone: a resync is needed.
        #expect(backlog.events(after: 1, lastSequence: 6, matching: EventFilter()) == nil)
        // A `since` from the future belongs to another instance.
        #expect(backlog.events(after: 9, lastSequence: 6, matching: EventFilter()) == nil)
    }

    @Test func anEmptyBacklogResyncsUnlessNothingWasMissed() {
        let backlog = EventBacklog(capacity: 0)
        #expect(backlog.events(after: 3, lastSequence: 3, matching: EventFilter()) != nil)
        #expect(backlog.events(after: 2, lastSequence: 3, matching: EventFilter()) == nil)
    }

    @Test func theServiceReplaysTheSameBytesItPublished() throws {
        var service = ToastService(instance: "i1", resumeEvents: 100)
        var published: [[UInt8]] = []
        for index in 0..<3 {
            let response = service.respond(
                toLine: Array(#"{"op":"add","toast":{"message":"t\#(index)"}}"#.utf8), defaultSource: nil, now: 0
            )
            published += service.publish(response.effects).map(\.line)
        }
        service.connect(7, source: nil)
        let lines = service.subscribe(7, Request.Subscribe(since: 1, instance: "i1"), ref: "r", now: 0)
        let reply = try JSONValue.parse(lines[0])
        #expect(reply["result"]?["resync"] == false)
        #expect(reply["result"]?["instance"] == "i1")
        #expect(Array(lines.dropFirst()) == Array(published.dropFirst()))

        service.connect(8, source: nil)
        let other = service.subscribe(8, Request.Subscribe(since: 1, instance: "i0"), ref: nil, now: 0)
        #expect(try JSONValue.parse(other[0])["result"]?["resync"] == true)
        #expect(other.count == 2)
        #expect(try JSONValue.parse(other[1])["event"] == "snapshot")
    }

    @Test func originsHearTheEndButNotTheRestAndClosedConnectionsNothing() {
        var router = EventRouter()
        router.connect(1)
        router.connect(2)
        router.subscribe(2, filter: EventFilter(scene: "work"))
        router.noteAdder(1, of: 5)
        let presented = Self.event(5)
        #expect(router.route(presented).isEmpty)
        let ended = ToastEvent(seq: 2, time: 0, kind: .dismissed(presented.record!, .expired))
        #expect(router.route(ended) == [EventRouter.Delivery(connection: 1, asSubscriber: false)])
        // Once ended, the origin is forgotten.
        #expect(router.route(ended).isEmpty)
        router.noteAdder(1, of: 6)
        router.disconnect(1)
        let other = ToastEvent(seq: 3, time: 0, kind: .cancelled(Self.event(6, scene: "work").record!, .removed))
        #expect(router.route(other) == [EventRouter.Delivery(connection: 2, asSubscriber: true)])
    }
}
