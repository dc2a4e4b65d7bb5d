// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// Every line the daemon writes decodes once into a `ServerLine` (issue
/// #39): the snapshot, `lagged` and `shutdown` notices included, which
/// `decodeEvent` left to each client to read by key.
@Suite("Typed server lines")
struct ServerLineTests {
    static func decoded(_ bytes: [UInt8]) throws -> ServerLine {
        try WireDecoder.decodeServerLine(try JSONValue.parse(String(decoding: bytes.dropLast(bytes.last == 10 ? 1 : 0), as: UTF8.self)))
    }

    /// A scheduler with shown, waiting and paused state, as a subscriber's
    /// snapshot writes it: it reads back to the same snapshot.
    @Test func aSnapshotReadsBackWhole() throws {
        var service = ToastService(configuration: SchedulerConfiguration(maxVisible: 1), instance: "0123456789abcdef")
        for (index, line) in [
            #"{"op":"add","toast":{"message":"a","duration":"indefinite","actions":[{"id":"x","label":"X"}]}}"#,
            #"{"op":"add","toast":{"message":"b","progress":0.4,"scene":"s","alignment":"bottom"}}"#,
            #"{"op":"add","toast":{"message":"c","role":"failure"}}"#,
            #"{"op":"mode","add":"work"}"#,
            #"{"op":"pause","level":70}"#,
        ].enumerated() {
            _ = service.respond(toLine: Array(line.utf8), defaultSource: "t", now: Int64(index))
        }
        var expected = service.scheduler.snapshot()
        // `placement` is the store's, not the wire's.
        for index in expected.toasts.indices { expected.toasts[index].placement = 0 }
        guard case .snapshot(let snapshot) = try Self.decoded(service.snapshotLine(filter: EventFilter(), now: 42)) else {
            Issue.record("not a snapshot")
            return
        }
        #expect(snapshot.snapshot == expected)
        #expect(snapshot.instance == "0123456789abcdef")
        #expect(snapshot.time == 42)
        #expect(snapshot.snapshot.toasts.count == 3 && snapshot.snapshot.pauseLevel == 70 && snapshot.snapshot.modes == ["work"])
        // A `list` reply carries the same object as its result.
        let list = WireEncoder.snapshotReplyLine(ref: 7, expected, instance: "0123456789abcdef")
        guard case .reply(let ref, .success(let result)) = try Self.decoded(list) else {
            Issue.record("not a reply")
            return
        }
        #expect(ref == 7)
        #expect(try WireDecoder.decodeSnapshot(result) == expected)
    }

    @Test func noticesAndEventsAndRepliesAreTyped() throws {
        let lagged = WireEncoder.line(WireEncoder.laggedNotice(seq: 9, time: 100, dropped: 692))
        #expect(try Self.decoded(lagged) == .lagged(seq: 9, time: 100, dropped: 692))
        let shutdown = WireEncoder.line(WireEncoder.shutdownNotice(seq: 3, time: 5, reason: "SIGTERM"))
        #expect(try Self.decoded(shutdown) == .shutdown(seq: 3, time: 5, reason: "SIGTERM"))
        let record = ToastRecord(id: 4, toast: Toast(message: "m"), state: .shown, repeatCount: 1, createdAt: 1, presentedAt: 1)
        let event = ToastEvent(seq: 12, time: 2, kind: .dismissed(record, .user))
        #expect(try Self.decoded(WireEncoder.eventLine(event)) == .event(event))
        let refusal = WireEncoder.failureLine(ref: "r", error: ToastError(.notFound, "gone", field: "id"))
        #expect(try Self.decoded(refusal) == .reply(ref: "r", .failure(ToastError(.notFound, "gone", field: "id"))))
        #expect(try WireDecoder.decodeServerLine(["event": "sparkle", "seq": 1, "time": 1]) == .unknown(event: "sparkle"))
        #expect(throws: ToastError.self) { try WireDecoder.decodeServerLine(["hello": 1]) }
    }

    @Test func historyEntriesReadBack() throws {
        let record = ToastRecord(id: 3, toast: Toast(message: "gone", role: .warning), state: .shown, repeatCount: 2, createdAt: 1, presentedAt: 1)
        let entries = [
            ToastHistory.Entry(record: record, shown: true, reason: "user", endedAt: 10, seq: 4),
            ToastHistory.Entry(record: record, shown: false, reason: "removed", endedAt: 12, seq: 6),
        ]
        let result: JSONValue = ["entries": .array(entries.map(WireEncoder.historyEntry))]
        #expect(try WireDecoder.decodeHistoryEntries(result) == entries)
        #expect(throws: ToastError.self) { try WireDecoder.decodeHistoryEntries(["entries": [["toast": 1]]]) }
    }

    @Test func anAddReplyReadsBack() throws {
        var service = ToastService(configuration: SchedulerConfiguration(), instance: "i")
        let first = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"m","duration":"indefinite"}}"#.utf8), defaultSource: "t", now: 1)
        let again = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"m","duration":"indefinite"}}"#.utf8), defaultSource: "t", now: 2)
        let added = try WireDecoder.decodeAddResult(WireDecoder.reply(try JSONValue.parse(String(decoding: first.replyLine!.dropLast(), as: UTF8.self))).get())
        #expect(added.record.id == 1 && !added.deduped && !added.dropped && added.replaced == nil)
        let deduped = try WireDecoder.decodeAddResult(WireDecoder.reply(try JSONValue.parse(String(decoding: again.replyLine!.dropLast(), as: UTF8.self))).get())
        #expect(deduped.deduped && deduped.record.repeatCount == 2)
        #expect(throws: ToastError.self) { try WireDecoder.decodeAddResult(["deduped": true]) }
    }

    /// Every line of every transcript the daemon writes decodes, as the
    /// case its `event` or `ok` says.
    @Test func everyTranscriptLineDecodes() throws {
        let directory = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "protocol/examples")
        var count = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".transcript") {
            let text = try String(contentsOf: directory.appending(path: name), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let space = line.firstIndex(of: " "), line[..<space].hasSuffix("<") || line.hasPrefix("*") else { continue }
                let value = try JSONValue.parse(String(line[line.index(after: space)...]))
                let decoded = try WireDecoder.decodeServerLine(value)
                switch decoded {
                case .reply: #expect(value["ok"] != nil)
                case .event(let event): #expect(value["event"]?.stringValue == event.name)
                case .snapshot: #expect(value["event"] == "snapshot")
                case .lagged: #expect(value["event"] == "lagged")
                case .shutdown: #expect(value["event"] == "shutdown")
                case .unknown(let kind): Issue.record("\(kind) in \(name) is unknown")
                }
                count += 1
            }
        }
        #expect(count > 200)
    }
}
