// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastOverlay
import ToastProtocol

/// The overlay follows the stream and decides nothing: the stacks are what
/// the lines say, newest nearest the middle.
@Suite struct OverlayModelTests {
    func record(_ id: ToastID, _ alignment: ToastAlignment, scene: String = "default", state: ToastRecord.State = .shown) -> ToastRecord {
        ToastRecord(id: id, toast: Toast(message: "m\(id)", alignment: alignment, scene: scene), state: state, repeatCount: 1, createdAt: 0)
    }

    func event(_ sequence: UInt64, _ kind: ToastEvent.Kind) -> ServerLine { .event(ToastEvent(seq: sequence, time: 0, kind: kind)) }

    @Test func stacksFollowTheStream() {
        var model = OverlayModel(scene: "default")
        #expect(model.apply(event(1, .presented(record(1, .top)))) == [.top])
        #expect(model.apply(event(2, .presented(record(2, .top)))) == [.top])
        #expect(model.apply(event(3, .presented(record(3, .bottom)))) == [.bottom])
        #expect(model.apply(event(4, .presented(record(4, .bottom)))) == [.bottom])
        #expect(model.apply(event(5, .presented(record(5, .top, scene: "other")))) == [], "another scene")
        // Newest nearest the middle: last in the top stack, first in the bottom one.
        #expect(model.stack(.top).map(\.id) == [1, 2])
        #expect(model.stack(.bottom).map(\.id) == [4, 3])
        // A toast sent back to the queue leaves the screen; one that ends too.
        #expect(model.apply(event(6, .queued(record(1, .top, state: .queued)))) == [.top])
        #expect(model.apply(event(7, .dismissed(record(4, .bottom), .user))) == [.bottom])
        #expect(model.stack(.top).map(\.id) == [2])
        #expect(model.stack(.bottom).map(\.id) == [3])
        #expect(model.record(4) == nil && model.record(2) != nil)
    }
}
