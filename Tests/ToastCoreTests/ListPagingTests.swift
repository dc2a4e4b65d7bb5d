// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// `list` and `history` answer a page at a time (issue #38): one reply
/// holds at most 1,000 toasts or entries, whatever lives, and says where
/// the next page starts.
@Suite("List and history pages")
struct ListPagingTests {
    static func reply(_ service: inout ToastService, _ line: String) throws -> JSONValue {
        let response = service.respond(toLine: Array(line.utf8), defaultSource: "t", now: 1)
        _ = service.publish(response.effects)
        let text = String(decoding: response.replyLine!.dropLast(), as: UTF8.self)
        return try JSONValue.parse(text)
    }

    @Test func aListIsAtMostAThousandToastsAndNextGivesTheRest() throws {
        var service = ToastService(configuration: SchedulerConfiguration(maxVisible: 3), instance: "i")
        for index in 0..<2_500 {
            _ = try Self.reply(&service, #"{"op":"add","toast":{"message":"toast \#(index)","duration":"indefinite"}}"#)
        }
        let first = try WireDecoder.reply(try Self.reply(&service, #"{"op":"list"}"#)).get()
        #expect(try WireDecoder.decodeSnapshot(first).toasts.count == 1_000)
        #expect(WireDecoder.listNext(first) == 1_000)
        let last = try WireDecoder.reply(try Self.reply(&service, #"{"op":"list","offset":2000}"#)).get()
        #expect(try WireDecoder.decodeSnapshot(last).toasts.count == 500)
        #expect(WireDecoder.listNext(last) == nil)
        // The pages together are the whole list, in order, once each.
        var asked = 0
        let all = try WireDecoder.listAll(EventFilter()) { request in
            asked += 1
            let response = service.respond(toLine: WireEncoder.line(request).dropLast(), defaultSource: "t", now: 1)
            return try WireDecoder.reply(try JSONValue.parse(String(decoding: response.replyLine!.dropLast(), as: UTF8.self))).get()
        }
        #expect(asked == 3)
        let whole = try WireDecoder.decodeSnapshot(all)
        #expect(whole.toasts.map(\.id) == service.scheduler.snapshot().toasts.map(\.id))
        let small = try WireDecoder.reply(try Self.reply(&service, #"{"op":"list","limit":10,"offset":5}"#)).get()
        #expect(try WireDecoder.decodeSnapshot(small).toasts.map(\.id) == Array(service.scheduler.snapshot().toasts.map(\.id)[5..<15]))
        let refused = try Self.reply(&service, #"{"op":"list","limit":1001}"#)
        #expect(WireDecoder.refusal(refused)?.code == .invalidField)
        // Past the end: an empty page, no next.
        let beyond = try WireDecoder.reply(try Self.reply(&service, #"{"op":"list","offset":9000}"#)).get()
        #expect(try WireDecoder.decodeSnapshot(beyond).toasts.isEmpty && WireDecoder.listNext(beyond) == nil)
    }

    @Test func historyPagesGoOnFromTheLastEntryWithBefore() throws {
        var service = ToastService(configuration: SchedulerConfiguration(), instance: "i", history: ToastHistory(capacity: 5_000))
        for index in 0..<1_500 {
            _ = try Self.reply(&service, #"{"op":"add","toast":{"message":"gone \#(index)","duration":"indefinite"}}"#)
            _ = try Self.reply(&service, #"{"op":"remove","id":\#(index + 1)}"#)
        }
        let first = try WireDecoder.reply(try Self.reply(&service, #"{"op":"history","limit":5000}"#)).get()
        let entries = try WireDecoder.decodeHistoryEntries(first)
        #expect(entries.count == 1_000, "one reply holds at most 1,000 entries")
        let next = try #require(first["next"]?.intValue)
        #expect(next == Int64(entries.last!.seq))
        let rest = try WireDecoder.reply(try Self.reply(&service, #"{"op":"history","before":\#(next)}"#)).get()
        let older = try WireDecoder.decodeHistoryEntries(rest)
        #expect(older.count == 500 && rest["next"] == nil)
        #expect(Set((entries + older).map(\.record.id)).count == 1_500)
        #expect(older.allSatisfy { $0.seq < UInt64(next) })
    }
}
