// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// Who hears a toast's end: its adders (PROTOCOL.md, section 6.3).
@Suite("Event routing")
struct EventRouterTests {
    static func ended(_ id: ToastID, seq: UInt64) -> ToastEvent {
        let record = ToastRecord(
            id: id, toast: Toast(message: "m"), state: .shown, repeatCount: 1, createdAt: 0, presentedAt: 0, expiresAt: nil
        )
        return ToastEvent(seq: seq, time: 0, kind: .dismissed(record, .expired))
    }

    /// Every connection that added the toast hears its end once, in the
    /// order they added it, however often each added it; a closed adder
    /// and a connection that never added it hear nothing, and once the
    /// toast has ended nobody is its adder any more.
    @Test func everyOpenAdderHearsTheEndOnceInOrder() {
        var router = EventRouter()
        for connection in 1...5 { router.connect(connection) }
        for adder in [3, 1, 3, 4, 1, 2, 4] { router.noteAdder(adder, of: 7) }
        router.noteAdder(5, of: 8)
        router.disconnect(2)
        let deliveries = router.route(Self.ended(7, seq: 1))
        #expect(deliveries.map(\.connection) == [3, 1, 4])
        #expect(deliveries.allSatisfy { !$0.asSubscriber })
        #expect(router.route(Self.ended(7, seq: 2)).isEmpty, "the adders were forgotten at the end")
        #expect(router.route(Self.ended(8, seq: 3)).map(\.connection) == [5])
    }

    /// A closed adder and an ended toast leave nothing behind: a connection
    /// that closes takes its toasts' entries with it, while another adder
    /// of the same toast still hears the end, in the order they added it;
    /// a toast that ends leaves nothing in its adders' sets.
    @Test func closedAddersAndEndedToastsLeaveNothingBehind() {
        var router = EventRouter()
        for connection in 1...4 { router.connect(connection) }
        for toast: ToastID in 1...100 { router.noteAdder(1, of: toast) }
        router.noteAdder(2, of: 50)
        for adder in [3, 1, 2, 4] { router.noteAdder(adder, of: 51) }
        #expect(router.toastsWithAdders == 100)
        router.disconnect(1)
        #expect(router.toastsWithAdders == 2, "only the toasts another connection added too")
        router.disconnect(3)
        #expect(router.route(Self.ended(51, seq: 1)).map(\.connection) == [2, 4])
        #expect(router.toastCount(addedBy: 2) == 1 && router.toastCount(addedBy: 4) == 0)
        for toast: ToastID in 200..<300 { router.noteAdder(4, of: toast) }
        for toast: ToastID in 200..<300 { _ = router.route(Self.ended(toast, seq: toast)) }
        #expect(router.toastCount(addedBy: 4) == 0)
        #expect(router.toastsWithAdders == 1)
        router.disconnect(2)
        #expect(router.toastsWithAdders == 0)
        #expect(router.route(Self.ended(50, seq: 400)).isEmpty)
        // A connection with few of the table's toasts: forgotten one by one
        // (the others are rebuilt in one pass); the same outcome.
        for connection in 5...6 { router.connect(connection) }
        for toast: ToastID in 500..<510 { router.noteAdder(6, of: toast) }
        router.noteAdder(5, of: 505)
        router.noteAdder(5, of: 600)
        router.disconnect(5)
        #expect(router.toastsWithAdders == 10)
        #expect(router.route(Self.ended(505, seq: 401)).map(\.connection) == [6])
        #expect(router.route(Self.ended(600, seq: 402)).isEmpty)
    }

    /// An adder that also subscribes hears the end once, as a subscriber.
    @Test func anAdderThatSubscribesHearsTheEndOnce() {
        var router = EventRouter()
        for connection in 1...2 { router.connect(connection) }
        router.noteAdder(1, of: 7)
        router.noteAdder(2, of: 7)
        router.subscribe(2, filter: EventFilter())
        let deliveries = router.route(Self.ended(7, seq: 1))
        #expect(deliveries.map(\.connection) == [2, 1])
        #expect(deliveries.map(\.asSubscriber) == [true, false])
        // ...and that delivery is marked its own, so that lag never drops it (6.3).
        #expect(deliveries.map(\.isOwn) == [true, false])
    }

    /// Subscribers hear an event in connection order, whatever order they
    /// subscribed in; subscribing again replaces the filter (and keeps the
    /// place); a closed subscriber hears nothing, and its filter is gone.
    @Test func subscribersHearInConnectionOrderWithTheirLatestFilter() {
        var router = EventRouter()
        for connection in 1...4 { router.connect(connection) }
        for connection in [3, 1, 4, 2] { router.subscribe(connection, filter: EventFilter(roles: [.success])) }
        router.subscribe(1, filter: EventFilter(roles: [.failure]))
        router.disconnect(4)
        func event(_ role: ToastRole, seq: UInt64) -> ToastEvent {
            let record = ToastRecord(
                id: 9, toast: Toast(message: "m", role: role), state: .shown, repeatCount: 1, createdAt: 0, presentedAt: 0, expiresAt: nil
            )
            return ToastEvent(seq: seq, time: 0, kind: .presented(record))
        }
        #expect(router.route(event(.success, seq: 1)).map(\.connection) == [2, 3])
        #expect(router.route(event(.failure, seq: 2)).map(\.connection) == [1])
        #expect(router.filter(of: 1) == EventFilter(roles: [.failure]))
        #expect(router.filter(of: 4) == nil)
        #expect(router.subscriberCount == 3)
    }
}
