// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastProtocol

/// The stored form of a record (a row's body, a journal record's): the wire
/// form without the members whose absence decodes to the same value, and
/// with the record's placement.
@Suite("Stored records")
struct StoredRecordTests {
    static func stored(_ record: ToastRecord) -> String {
        WireEncoder.withStoredRecord(record) { String(decoding: $0, as: UTF8.self) }
    }

    static func wire(_ record: ToastRecord) -> String {
        String(decoding: LineWriter.line { WireEncoder.writeToast(record, into: &$0) }, as: UTF8.self)
    }

    static func readBack(_ body: String) throws -> ToastRecord {
        try WireDecoder.decodeRecord(try JSONValue.parse(body))
    }

    /// Every case of every field that may be left out, with the others that
    /// sit beside it, reads back equal; and what a default left out is the
    /// only difference from the wire form.
    @Test func everyCaseReadsBackEqual() throws {
        let durations: [ToastDuration?] = [nil, .short, .indefinite, .seconds(0.25)]
        let actionSets: [[ToastAction]] = [[], [ToastAction(id: "a", label: "Undo")]]
        var checked = 0
        for role in ToastRole.allCases {
            for alignment in ToastAlignment.allCases {
                for cancellation in CancellationPolicy.allCases {
                    for (index, duration) in durations.enumerated() {
                        var toast = Toast(
                            message: "m \(index)", title: index == 1 ? "t" : nil, role: role, duration: duration, alignment: alignment,
                            reuseID: index == 2 ? "r" : nil, progress: index == 3 ? .fraction(0.5) : .none,
                            dismissible: index.isMultiple(of: 2), closeButton: index == 1, actions: actionSets[index % 2],
                            source: "s", cancellation: cancellation, invalidation: InvalidationOptions(rawValue: UInt8(index % 4))
                        )
                        toast.resident = index == 3
                        let record = ToastRecord(
                            id: ToastID(index + 1), toast: toast, state: index < 2 ? .queued : .shown, repeatCount: index + 1,
                            createdAt: 5, presentedAt: index < 2 ? nil : 6, expiresAt: index == 3 ? 9 : nil, placement: UInt64(index)
                        )
                        let body = Self.stored(record)
                        #expect(try Self.readBack(body) == record, "\(body)")
                        // The wire form's members, less some at their defaults.
                        let wire = try JSONValue.parse(Self.wire(record))
                        guard case .object(let kept) = try JSONValue.parse(body), case .object(let all) = wire else {
                            Issue.record("not objects")
                            continue
                        }
                        for key in all.keys where kept[key] == nil {
                            #expect(Self.leftOut[key] == all[key], "\(key) left out at \(all[key] ?? .null)")
                        }
                        for key in kept.keys where key != "placement" { #expect(kept[key] == all[key], "\(key)") }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == ToastRole.allCases.count * ToastAlignment.allCases.count * CancellationPolicy.allCases.count * 4)
    }

    /// The members left out, each at the one value it may be left out at.
    static let leftOut: [String: JSONValue] = [
        "actions": .array([]), "alignment": "top", "cancellation": "presentation", "closeButton": false, "dismissible": true,
        "invalidation": .array([]), "repeat": 1,
    ]

    /// A plain toast's body holds only what is not a default, in order.
    @Test func aPlainToastIsStoredShort() {
        let record = ToastRecord(id: 7, toast: Toast(message: "hi", source: "sh[1]"), state: .queued, repeatCount: 1, createdAt: 5, placement: 3)
        #expect(
            Self.stored(record)
                == #"{"createdAt":5,"id":7,"message":"hi","role":"plain","scene":"default","source":"sh[1]","state":"queued","placement":3}"#
        )
    }

    /// A row in the full form, as earlier versions stored it (the wire form
    /// with its placement last), reads back as the short form does.
    @Test func aRowOfTheFullFormReadsBackTheSame() throws {
        let record = ToastRecord(
            id: 2, toast: Toast(message: "deploy", role: .success, source: "ci"), state: .shown, repeatCount: 1, createdAt: 10,
            presentedAt: 11, expiresAt: 4_011, placement: 1
        )
        let full = String(Self.wire(record).dropLast()) + #","placement":1}"#
        #expect(full.contains(#""actions":[],"alignment":"top","cancellation":"presentation","closeButton":false"#))
        #expect(try Self.readBack(full) == record)
        #expect(try Self.readBack(Self.stored(record)) == record)
        #expect(Self.stored(record).utf8.count < full.utf8.count * 3 / 4)
    }
}
