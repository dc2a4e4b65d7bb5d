// SPDX-License-Identifier: Apache-2.0
import NIOCore
import Testing

@testable import ToastDaemon

/// The hold on a connection's requests while its unread replies are at
/// their bound (issue #38: replies had none).
@Suite("Request hold")
struct RequestHoldTests {
    static func line(_ text: String) -> FramedLine { .line(ByteBuffer(string: text)) }

    static func text(_ line: FramedLine?) -> String? {
        guard case .line(let buffer)? = line else { return nil }
        return String(buffer: buffer)
    }

    @Test func requestsWaitWhileTheRepliesOwedReachTheBoundAndGoOnInOrder() {
        var hold = RequestHold()
        #expect(hold.read(Self.line("a"), stepOwed: 0, buffered: 0, writable: true) == .answer)
        // This step's replies alone reach the bound: the next request waits.
        #expect(hold.read(Self.line("b"), stepOwed: RequestHold.bound, buffered: 0, writable: true) == .hold)
        // Once one waits, every later one waits behind it, whatever the bound says.
        #expect(hold.read(Self.line("c"), stepOwed: 0, buffered: 0, writable: true) == .hold)
        #expect(hold.isHolding)
        // Still owed: nothing comes out.
        hold.owed = RequestHold.bound - 10
        #expect(hold.next(stepOwed: 0, buffered: 10, writable: true) == nil)
        #expect(hold.next(stepOwed: 0, buffered: 0, writable: false) == nil)
        hold.owed = 0
        #expect(Self.text(hold.next(stepOwed: 0, buffered: 0, writable: true)) == "b")
        #expect(Self.text(hold.next(stepOwed: 0, buffered: 0, writable: true)) == "c")
        #expect(hold.next(stepOwed: 0, buffered: 0, writable: true) == nil)
        #expect(!hold.isHolding)
    }

    @Test func whatSwiftNIOHoldsCountsAndAnUnwritableChannelHolds() {
        var hold = RequestHold()
        #expect(hold.read(Self.line("a"), stepOwed: 1, buffered: RequestHold.bound - 1, writable: true) == .hold)
        var other = RequestHold()
        #expect(other.read(Self.line("a"), stepOwed: 0, buffered: 0, writable: false) == .hold)
    }
}

extension FramedLine: Equatable {
    public static func == (lhs: FramedLine, rhs: FramedLine) -> Bool {
        switch (lhs, rhs) {
        case (.line(let a), .line(let b)): a == b
        case (.tooLong, .tooLong): true
        default: false
        }
    }
}
