// SPDX-License-Identifier: Apache-2.0
import Foundation
import PropertyBased
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// The add fast path must decode exactly what the general decoder decodes,
/// take the lines clients really send, and leave everything else (errors
/// above all) to the general decoder.
@Suite("Wire decoder: the add fast path")
struct AddFastPathTests {
    /// What the fast path makes of a line, and what the general decoder does.
    static func both(_ line: String) -> (fast: RequestEnvelope?, general: Result<RequestEnvelope, WireDecoder.Failure>) {
        let bytes = Array(line.utf8)
        let fast = bytes.withUnsafeBufferPointer(WireDecoder.fastAdd).map {
            RequestEnvelope(ref: nil, request: .command(.add($0.toast)), defaulted: $0.defaulted)
        }
        return (fast, WireDecoder.decodeGenerally(line: bytes))
    }

    /// Whatever the fast path takes, the general decoder decodes the same.
    static func agree(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, general) = both(line)
        if let fast { #expect(general == .success(fast), "\(line)", sourceLocation: sourceLocation) }
    }

    @Test(arguments: [
        #"{"op":"add","toast":{"message":"Build finished"}}"#,
        #"{"toast":{"message":"Build finished","role":"success"},"op":"add"}"#,
        // Python's json.dumps, and a pretty printer's whitespace.
        #"{"op": "add", "toast": {"message": "deploy 7", "title": "CI", "duration": 2.5, "reuseId": "r7", "level": 40}}"#,
        "{\n  \"op\" : \"add\" ,\n  \"toast\" : { \"message\" : \"x\" }\n}\n",
        #"{"op":"add","toast":{"message":"a \"quoted\" line\nand a second \u00e9 \ud83d\ude00"}}"#,
        #"{"op":"add","toast":{"message":"émoji 🚀","scene":"ide","alignment":"bottom","dismissible":false}}"#,
        #"{"op":"add","toast":{"message":"m","actions":[{"id":"open","label":"Open"}],"invalidation":["contextChanged"],"cancellation":"always","progress":0.5,"closeButton":true,"resident":true,"transient":false,"icon":"dialog-information","source":"make"}}"#,
        #"{"op":"add","toast":{"message":"m","progress":"indeterminate","duration":"indefinite"}}"#,
        // An escaped control character is valid JSON and a valid message (viewers strip it when they draw).
        #"{"op":"add","toast":{"message":"m\u0001"}}"#,
    ])
    func theLinesClientsSendTakeTheFastPathToTheSameRequest(line: String) {
        let (fast, general) = Self.both(line)
        #expect(fast != nil, "\(line)")
        #expect(general == fast.map { .success($0) }, "\(line)")
    }

    @Test(arguments: [
        // Not an add, or more than one.
        #"{"op":"update","id":1,"toast":{"message":"m"}}"#,
        #"{"op":"add","toast":{"message":"m"},"ref":7}"#,
        #"{"op":"add","op":"add","toast":{"message":"m"}}"#,
        #"{"op":"add","toast":{"message":"m"}}{"op":"add"}"#,
        // Errors, which the general decoder words.
        #"{"op":"add"}"#,
        #"{"op":"add","toast":{}}"#,
        #"{"op":"add","toast":{"message":"m","message":"n"}}"#,
        #"{"op":"add","toast":{"message":"m","colour":"red"}}"#,
        #"{"op":"add","toast":{"message":"m","role":"failur"}}"#,
        #"{"op":"add","toast":{"message":"m","duration":-1}}"#,
        #"{"op":"add","toast":{"message":"m","level":101}}"#,
        #"{"op":"add","toast":{"message":"m","level":5.5}}"#,
        #"{"op":"add","toast":{"message":"   "}}"#,
        #"{"op":"add","toast":{"message":7}}"#,
        #"{"op":"add","toast":{"message":"m",}}"#,
        #"{"op":"add","toast":{"message":"m"},}"#,
        #"{"op":"add","toast":{"message":"m" "title":"t"}}"#,
        #"{"op":"add","toast":{"message":"m","actions":[{"id":"a"}]}}"#,
        #"{"op":"add","toast":["message"]}"#,
        "{\"op\":\"add\",\"toast\":{\"message\":\"\u{1}\"}}",
        // Keys are matched as bytes: an escape in a key or in the op, or a
        // key that only begins or ends like a member's, is not taken.
        #"{"op":"add","toast":{"mess\u0061ge":"m"}}"#,
        #"{"\u006fp":"add","toast":{"message":"m"}}"#,
        #"{"op":"\u0061dd","toast":{"message":"m"}}"#,
        #"{"op":"add","toast":{"message":"m","messag":"n"}}"#,
        #"{"op":"add","toast":{"message":"m","titles":"t"}}"#,
        #"{"op":"adds","toast":{"message":"m"}}"#,
    ])
    func everythingElseIsLeftToTheGeneralDecoder(line: String) {
        #expect(Self.both(line).fast == nil, "\(line)")
    }

    /// Every member `decodeToast` knows, the fast path knows too: a field
    /// added to one and not the other would silently cost every add the
    /// slow path (or fail here for want of a sample).
    @Test func everyToastMemberTakesTheFastPath() {
        let samples: [String: String] = [
            "message": #""m""#, "title": #""t""#, "icon": #""i""#, "role": #""info""#, "duration": "2",
            "alignment": #""bottom""#, "scene": #""s""#, "reuseId": #""r""#, "progress": "0.5", "dismissible": "false",
            "closeButton": "true", "actions": #"[{"id":"a","label":"A"}]"#, "source": #""src""#,
            "cancellation": #""always""#, "invalidation": #"["contextChanged"]"#, "resident": "true", "transient": "true",
            "level": "10", "markup": #""<b>m</b>""#, "image": #"{"path":"/usr/share/icons/x.png"}"#, "category": #""email""#,
            "desktopEntry": #""org.example.App""#, "urgency": #""critical""#, "soundName": #""bell""#, "dedupe": "false",
        ]
        for field in ToastMember.keys.sorted() {
            guard let sample = samples[field] else {
                Issue.record("no sample value for toast.\(field)")
                continue
            }
            let members = field == "message" ? #""message":"m""# : #""message":"m","\#(field)":\#(sample)"#
            let line = #"{"op":"add","toast":{\#(members)}}"#
            let (fast, general) = Self.both(line)
            #expect(fast != nil, "\(line)")
            #expect(general == fast.map { .success($0) }, "\(line)")
        }
    }

    @Test func invalidUTF8IsLeftToTheGeneralDecoder() {
        var bytes = Array(#"{"op":"add","toast":{"message":"x"}}"#.utf8)
        bytes[30] = 0xFF
        #expect(bytes.withUnsafeBufferPointer(WireDecoder.fastAdd) == nil)
        #expect((try? WireDecoder.decode(line: bytes).get()) == nil)
    }

    /// Random toasts from the scheduler's property tests, as toastctl and
    /// ToastKit write them: every one takes the fast path, to the same request.
    @Test func encodedToastsTakeTheFastPathToTheSameRequest() async {
        await propertyCheck(count: 40, input: SchedulerPropertyTests.steps) { steps in
            var scheduler = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 2))
            for step in steps {
                for event in scheduler.handle(SchedulerPropertyTests.command(step), now: 0).events {
                    guard let toast = event.record?.toast else { continue }
                    for defaulted in [ToastFieldSet.all, []] {
                        let request = RequestEnvelope(request: .command(.add(toast)), defaulted: defaulted)
                        let line = String(decoding: WireEncoder.line(WireEncoder.request(request)).dropLast(), as: UTF8.self)
                        let (fast, general) = Self.both(line)
                        #expect(fast != nil, "\(line)")
                        #expect(general == fast.map { .success($0) }, "\(line)")
                    }
                }
            }
        }
    }

    /// Every request line of every transcript: where the fast path answers,
    /// it agrees.
    @Test func theTranscriptsAgree() throws {
        var lines = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: TranscriptTests.examples.path) where name.hasSuffix(".transcript") {
            let text = try String(contentsOf: TranscriptTests.examples.appending(path: name), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let arrow = line.firstRange(of: "> ") else { continue }
                Self.agree(String(line[arrow.upperBound...]))
                lines += 1
            }
        }
        #expect(lines > 100)
    }
}
