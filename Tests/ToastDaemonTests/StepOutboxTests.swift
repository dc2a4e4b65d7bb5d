// SPDX-License-Identifier: Apache-2.0
import NIOCore
import Testing
import ToastCore

@testable import ToastDaemon

@Suite("A step's writes")
struct StepOutboxTests {
    static func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    static func texts(_ outbox: StepOutbox) -> [(Int, String, UInt64?)] {
        StepOutbox.encoded(outbox.writes).map { ($0.connection, String(buffer: $0.bytes), $0.seq) }
    }

    @Test func linesToOneConnectionJoinAcrossOtherConnectionsWrites() {
        var outbox = StepOutbox()
        outbox.append(line: Self.line("a1"), to: 1)
        outbox.append(ByteBuffer(string: "event\n"), to: 2, seq: 7)
        outbox.append(line: Self.line("a2"), to: 1)
        outbox.append(line: Self.line("b1"), to: 2)
        let writes = Self.texts(outbox)
        #expect(writes.map(\.0) == [1, 2, 2])
        #expect(writes.map(\.1) == ["a1\na2\n", "event\n", "b1\n"])
        #expect(writes.map(\.2) == [nil, 7, nil])
    }

    /// A line after a subscriber's event to the same connection must not
    /// join an earlier write: it would overtake the event.
    @Test func aLineNeverOvertakesAnEventToItsConnection() {
        var outbox = StepOutbox()
        outbox.append(line: Self.line("reply 1"), to: 1)
        outbox.append(ByteBuffer(string: "event\n"), to: 1, seq: 3)
        outbox.append(line: Self.line("reply 2"), to: 1)
        #expect(Self.texts(outbox).map(\.1) == ["reply 1\n", "event\n", "reply 2\n"])
    }

    /// Each connection is flushed after its last write of the step, and
    /// only then: a connection flushed early would split its lines, one
    /// flushed late would wait for every other connection's writes.
    @Test func onlyEachConnectionsLastWriteIsMarkedLast() {
        var outbox = StepOutbox()
        outbox.append(line: Self.line("reply"), to: 1)
        outbox.append(ByteBuffer(string: "event 1\n"), to: 2, seq: 1)
        outbox.append(ByteBuffer(string: "event 1\n"), to: 3, seq: 1)
        outbox.append(ByteBuffer(string: "event 2\n"), to: 2, seq: 2)
        outbox.append(line: Self.line("notice"), to: 2)
        outbox.append(line: Self.line("reply 2"), to: 1)
        #expect(outbox.writes.map(\.connection) == [1, 2, 3, 2, 2])
        #expect(outbox.writes.map(\.isLast) == [true, false, true, false, true])
    }

    @Test func aJoinedWriteStopsGrowingAtTheFlushSize() {
        var outbox = StepOutbox()
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 999) + [UInt8(ascii: "\n")]
        for _ in 0..<200 { outbox.append(line: line, to: 1) }
        let sizes = outbox.writes.map(\.bytes.readableBytes)
        #expect(sizes.reduce(0, +) == 200_000)
        #expect(sizes.allSatisfy { $0 <= StepOutbox.joinedBytes })
        let linesPerWrite = StepOutbox.joinedBytes / line.count
        #expect(sizes.count == (200 + linesPerWrite - 1) / linesPerWrite, "every write but the last is full")
    }

    /// An add's response and its event, as a step would have them.
    static func answer(_ message: String) -> (response: ToastService.Response, event: ToastEvent) {
        var service = ToastService(instance: "i")
        let line = Array(#"{"op":"add","ref":7,"toast":{"message":"\#(message)"}}"#.utf8)
        let response = service.respond(toLine: line, defaultSource: nil, now: 5)
        #expect(response.isSchedulerSuccess)
        return (response, response.events.first!)
    }

    /// Replies and events left for later are encoded to the bytes they
    /// would have had at once, in their places among the lines already
    /// written, however the two kinds alternate.
    @Test func linesEncodedLaterKeepTheirBytesAndPlaces() {
        let (response, event) = Self.answer("later")
        var outbox = StepOutbox()
        outbox.append(line: Self.line("first"), to: 1)
        outbox.append(.reply(response), to: 1)
        outbox.append(line: Self.line("between"), to: 1)
        outbox.append(.event(event), to: 1)
        outbox.append(ByteBuffer(string: "event\n"), to: 2, seq: 1)
        outbox.append(line: Self.line("last"), to: 1)
        #expect(outbox.writes.first?.lines.count == 4, "the lines after the first reply wait with it")
        let expected =
            "first\n" + String(decoding: response.replyLine!, as: UTF8.self) + "between\n"
            + String(decoding: WireEncoder.eventLine(event), as: UTF8.self) + "last\n"
        let writes = StepOutbox.encoded(outbox.writes)
        #expect(writes.map(\.connection) == [1, 2])
        #expect(String(buffer: writes[0].bytes) == expected)
        #expect(writes[0].lines.isEmpty && writes[0].size == writes[0].bytes.readableBytes)
        #expect(String(buffer: writes[1].bytes) == "event\n")
    }

    /// A reply not yet encoded counts for its estimate toward the joined
    /// write's bound, so a long burst of them still flushes as it goes.
    @Test func repliesLeftForLaterCountTowardTheFlushSize() {
        let (response, _) = Self.answer("burst")
        var outbox = StepOutbox()
        let perWrite = StepOutbox.joinedBytes / StepOutbox.unencodedLineSize
        for _ in 0..<(perWrite * 2 + 1) { outbox.append(.reply(response), to: 1) }
        #expect(outbox.writes.map(\.lines.count) == [perWrite, perWrite, 1])
        let one = response.replyLine!.count
        #expect(StepOutbox.encoded(outbox.writes).map(\.bytes.readableBytes) == [perWrite * one, perWrite * one, one])
    }
}
