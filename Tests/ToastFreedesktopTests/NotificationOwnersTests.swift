// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastFreedesktop

/// The bridge's owners file: what a stop writes, a start reads back; and a
/// file from a damaged disk or another process is read line by line, the
/// lines that are not entries left out with the reason.
@Suite("The bridge's notification owners across a restart")
struct NotificationOwnersTests {
    static let kept = NotificationOwners(
        owners: [
            7: NotificationServer.Owner(app: "volume", connection: ":1.42"),
            12: NotificationServer.Owner(app: "mail \"inbox\"\n", connection: ":1.9"),
        ],
        actionKeys: [12: ["a1": "go on!", "default": "default"], 30: ["a1": "ü"]]
    )

    @Test func whatAStopWritesAStartReadsBack() {
        let bytes = Self.kept.encoded()
        let (read, problems) = NotificationOwners.decode(bytes)
        #expect(read == Self.kept)
        #expect(problems.isEmpty)
        #expect(bytes.split(separator: UInt8(ascii: "\n")).count == 3, "one line a notification")
        #expect(NotificationOwners().encoded().isEmpty)
    }

    @Test(arguments: [
        ("not json", "not JSON"),
        ("[1]", "not an object"),
        (#"{"app":"a","connection":":1.1"}"#, "no id"),
        (#"{"id":0,"app":"a","connection":":1.1"}"#, "no id"),
        (#"{"id":4294967296,"app":"a","connection":":1.1"}"#, "no id"),
        (#"{"id":5,"app":"a"}"#, "an app and a connection"),
        (#"{"id":5,"app":1,"connection":":1.1"}"#, "an app and a connection"),
        (#"{"id":5,"keys":{"a1":3}}"#, "not a string"),
        (#"{"id":5,"keys":["a1"]}"#, "keys must be an object"),
    ])
    func aDamagedLineIsLeftOutAndTheRestRead(line: String, reason: String) {
        let good = Self.kept.encoded()
        let (read, problems) = NotificationOwners.decode(Array(line.utf8) + [UInt8(ascii: "\n")] + good)
        #expect(read == Self.kept, "every good line is read")
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("line 1: ") == true)
        #expect(problems.first?.contains(reason) == true, "\(problems)")
    }

    @Test func anEntryOfTooManyKeysIsLeftOut() {
        let keys = (0...NotificationOwners.maxKeys).map { "\"k\($0)\":\"v\"" }.joined(separator: ",")
        let (read, problems) = NotificationOwners.decode(Array("{\"id\":5,\"keys\":{\(keys)}}".utf8))
        #expect(read.isEmpty)
        #expect(problems.count == 1)
    }

    @Test func aFileOverTheLimitIsLeftUnread() {
        let line = Array(#"{"id":5,"app":"a","connection":":1.1"}"#.utf8) + [UInt8(ascii: "\n")]
        let bytes = Array(repeating: line, count: NotificationOwners.maxBytes / line.count + 1).flatMap { $0 }
        let (read, problems) = NotificationOwners.decode(bytes)
        #expect(read.isEmpty)
        #expect(problems.first?.contains("left unread") == true)
    }
}
