// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("Wire decoder: requests and precise errors")
struct WireDecoderTests {
    func error(_ line: String) -> ToastError? {
        if case .failure(let failure) = WireDecoder.decode(line: line) { return failure.error }
        return nil
    }

    func decoded(_ line: String) -> Request? {
        if case .success(let envelope) = WireDecoder.decode(line: line) { return envelope.request }
        return nil
    }

    @Test func aFullAddDecodesEveryField() throws {
        let line = """
            {"op":"add","ref":7,"toast":{"message":"Build finished","title":"CI","icon":"🔨","role":"success",\
            "duration":"long","alignment":"bottom","scene":"sheet-1","reuseId":"build","progress":0.5,\
            "dismissible":false,"closeButton":true,"actions":[{"id":"undo","label":"Undo"}],"source":"ci",\
            "cancellation":"always","invalidation":["contextChanged","presentationDismissed"]}}
            """
        let envelope = try WireDecoder.decode(line: line).get()
        #expect(envelope.ref == .int(7))
        let expected = Toast(
            message: "Build finished", title: "CI", icon: "🔨", role: .success, duration: .long, alignment: .bottom,
            scene: "sheet-1", reuseID: "build", progress: .fraction(0.5), dismissible: false, closeButton: true,
            actions: [ToastAction(id: "undo", label: "Undo")], source: "ci", cancellation: .always,
            invalidation: [.contextChanged, .presentationDismissed]
        )
        #expect(envelope.request == .command(.add(expected)))
    }

    /// `isBlank` answers printable ASCII at the start without Unicode
    /// properties; it must agree with the definition everywhere.
    @Test func blankMeansEmptyOrOnlyWhiteSpace() {
        let pieces = [" ", "\t", "\n", "\u{0B}", "\u{85}", "\u{A0}", "\u{2003}", "\u{3000}", "x", "~", "\u{7F}", "é", "\u{1F600}", "!", "\u{0}"]
        // Every text of up to three pieces.
        var texts = [""]
        for _ in 0..<3 { texts += texts.flatMap { text in pieces.map { text + $0 } } }
        texts = Array(Set(texts))
        for text in texts where text.isBlank != text.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
            Issue.record("isBlank is wrong for \(Array(text.unicodeScalars))")
        }
        #expect(!" x".isBlank)
        #expect("\u{A0} ".isBlank)
    }

    @Test func defaultsApplyToAMinimalAdd() {
        #expect(decoded(#"{"op":"add","toast":{"message":"hi"}}"#) == .command(.add(Toast(message: "hi"))))
    }

    @Test(arguments: [
        (#"{"op":"add","toast":{"message":""}}"#, ToastError.Code.invalidField, "toast.message"),
        (#"{"op":"add","toast":{"message":"   "}}"#, .invalidField, "toast.message"),
        (#"{"op":"add","toast":{"message":"\u00a0\u2003\t\n"}}"#, .invalidField, "toast.message"),
        (#"{"op":"add","toast":{"message":"x","title":"\u3000"}}"#, .invalidField, "toast.title"),
        (#"{"op":"add","toast":{}}"#, .missingField, "toast.message"),
        (#"{"op":"add","toast":{"message":5}}"#, .invalidField, "toast.message"),
        (#"{"op":"add","toast":{"message":"x","role":"urgent"}}"#, .invalidField, "toast.role"),
        (#"{"op":"add","toast":{"message":"x","alignment":"left"}}"#, .invalidField, "toast.alignment"),
        (#"{"op":"add","toast":{"message":"x","duration":"forever"}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","duration":-1}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","duration":0}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","duration":0.05}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","duration":1e9}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","duration":true}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","progress":1.5}}"#, .invalidField, "toast.progress"),
        (#"{"op":"add","toast":{"message":"x","progress":-0.1}}"#, .invalidField, "toast.progress"),
        (#"{"op":"add","toast":{"message":"x","progress":"spin"}}"#, .invalidField, "toast.progress"),
        (#"{"op":"add","toast":{"message":"x","scene":"a b"}}"#, .invalidField, "toast.scene"),
        (#"{"op":"add","toast":{"message":"x","scene":""}}"#, .invalidField, "toast.scene"),
        (#"{"op":"add","toast":{"message":"x","dismissible":"yes"}}"#, .invalidField, "toast.dismissible"),
        (#"{"op":"add","toast":{"message":"x","cancellation":"sometimes"}}"#, .invalidField, "toast.cancellation"),
        (#"{"op":"add","toast":{"message":"x","invalidation":["never"]}}"#, .invalidField, "toast.invalidation[0]"),
        (#"{"op":"add","toast":{"message":"x","invalidation":"contextChanged"}}"#, .invalidField, "toast.invalidation"),
        (#"{"op":"add","toast":{"message":"x","colour":"red"}}"#, .unknownField, "toast.colour"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"a0","label":"A"},{"id":"a1","label":"A"},{"id":"a2","label":"A"},{"id":"a3","label":"A"},{"id":"a4","label":"A"},{"id":"a5","label":"A"},{"id":"a6","label":"A"},{"id":"a7","label":"A"},{"id":"a8","label":"A"},{"id":"a9","label":"A"},{"id":"a10","label":"A"},{"id":"a11","label":"A"},{"id":"a12","label":"A"},{"id":"a13","label":"A"},{"id":"a14","label":"A"},{"id":"a15","label":"A"},{"id":"a16","label":"A"}]}}"#, .invalidField, "toast.actions"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"a","label":"A"},{"id":"a","label":"B"}]}}"#, .invalidField, "toast.actions[1].id"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"a","label":"A"},{"id":"b","label":"B"},{"id":"a","label":"C"}]}}"#, .invalidField, "toast.actions[2].id"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"a","label":" "}]}}"#, .invalidField, "toast.actions[0].label"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"has space","label":"A"}]}}"#, .invalidField, "toast.actions[0].id"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"a"}]}}"#, .missingField, "toast.actions[0].label"),
        (#"{"op":"add","toast":{"message":"x","actions":[{"id":"a","label":"A","key":1}]}}"#, .unknownField, "toast.actions[0].key"),
        // A member of the wrong type is invalid_field, an object expected or not (issue #11, failure 2).
        (#"{"op":"add","toast":{"message":"x","actions":["undo"]}}"#, .invalidField, "toast.actions[0]"),
        (#"{"op":"add"}"#, .missingField, "toast"),
        (#"{"op":"add","toast":"hi"}"#, .invalidField, "toast"),
        (#"{"op":"add","toast":null}"#, .invalidField, "toast"),
        // null is a value of the wrong type, except where update resets with it (failure 3).
        (#"{"op":"add","toast":{"message":"x","title":null}}"#, .invalidField, "toast.title"),
        (#"{"op":"add","toast":{"message":"x","icon":null}}"#, .invalidField, "toast.icon"),
        (#"{"op":"add","toast":{"message":"x","duration":null}}"#, .invalidField, "toast.duration"),
        (#"{"op":"add","toast":{"message":"x","progress":null}}"#, .invalidField, "toast.progress"),
        (#"{"op":"add","toast":{"message":"x","role":null}}"#, .invalidField, "toast.role"),
        (#"{"op":"add","toast":{"message":"x","actions":null}}"#, .invalidField, "toast.actions"),
        (#"{"op":"add","toast":{"message":null}}"#, .invalidField, "toast.message"),
        (#"{"op":"update","id":1,"toast":{"role":null}}"#, .invalidField, "toast.role"),
        (#"{"op":"update","id":1,"toast":{"progress":null}}"#, .invalidField, "toast.progress"),
        (#"{"op":"remove","id":null}"#, .invalidField, "id"),
        (#"{"op":"list","scene":null}"#, .invalidField, "scene"),
        (#"{"op":"add","toast":{"message":"x"},"wait":true}"#, .unknownField, "wait"),
        (#"{"op":"update","toast":{"message":"x"}}"#, .missingField, "id"),
        (#"{"op":"update","id":0,"toast":{"message":"x"}}"#, .invalidField, "id"),
        (#"{"op":"update","id":1.5,"toast":{"message":"x"}}"#, .invalidField, "id"),
        (#"{"op":"remove","id":-1}"#, .invalidField, "id"),
        (#"{"op":"remove","id":1e30}"#, .invalidField, "id"),
        (#"{"op":"remove","id":9007199254740992}"#, .invalidField, "id"),
        (#"{"op":"remove","id":"7"}"#, .invalidField, "id"),
        (#"{"op":"update","id":1,"reuseId":"r","toast":{"message":"x"}}"#, .invalidRequest, "reuseId"),
        (#"{"op":"update","id":1,"scene":"s","toast":{"message":"x"}}"#, .invalidRequest, "scene"),
        (#"{"op":"update","id":1,"toast":{}}"#, .invalidRequest, "toast"),
        (#"{"op":"update","id":1,"toast":{"alignment":"top"}}"#, .invalidField, "toast.alignment"),
        (#"{"op":"update","id":1,"toast":{"message":null}}"#, .invalidField, "toast.message"),
        (#"{"op":"invoke","id":1}"#, .missingField, "action"),
        (#"{"op":"clear","alignment":"middle"}"#, .invalidField, "alignment"),
        (#"{"op":"list","roles":["info","loud"]}"#, .invalidField, "roles[1]"),
        (#"{"op":"endSource"}"#, .missingField, "source"),
        (#"{"op":"hello"}"#, .missingField, "version"),
        (#"{"op":"hello","version":1,"bindSource":true}"#, .missingField, "source"),
        (#"{"op":"hello","version":0}"#, .invalidField, "version"),
        (#"{"op":"hello","version":"1.1"}"#, .invalidField, "version"),
        (#"{"op":"subscribe","since":-1}"#, .invalidField, "since"),
        (#"{"op":"subscribe","since":1.5}"#, .invalidField, "since"),
        (#"{"op":"subscribe","instance":"abc"}"#, .missingField, "since"),
        (#"{"op":"launch"}"#, .unknownOp, "op"),
        (#"{"op":7}"#, .invalidField, "op"),
        (#"{"op":null}"#, .invalidField, "op"),
        (#"{"toast":{}}"#, .invalidRequest, "op"),
        (#"{"op":"pause","extra":1}"#, .unknownField, "extra"),
    ])
    func everyRuleBrokenNamesItsField(line: String, code: ToastError.Code, field: String) {
        let error = error(line)
        #expect(error?.code == code, "\(line)")
        #expect(error?.field == field, "\(line)")
        #expect(error?.message.isEmpty == false)
    }

    @Test func lengthLimitsAreEnforced() {
        let long = String(repeating: "é", count: ToastLimits.messageBytes / 2 + 1)
        let error = error(#"{"op":"add","toast":{"message":"\#(long)"}}"#)
        #expect(error?.code == .invalidField)
        #expect(error?.message.contains("\(ToastLimits.messageBytes) bytes") == true)
        let atLimit = String(repeating: "a", count: ToastLimits.messageBytes)
        #expect(decoded(#"{"op":"add","toast":{"message":"\#(atLimit)"}}"#) != nil)
    }

    @Test func malformedLinesGetTypedErrors() {
        #expect(error("{\"op\":")?.code == .invalidJSON)
        #expect(error("[1,2]")?.code == .invalidRequest)
        #expect(error("")?.code == .invalidJSON)
        #expect(error("\"add\"")?.code == .invalidRequest)
        let invalidUTF8: [UInt8] = Array(#"{"op":"add","toast":{"message":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)
        if case .failure(let failure) = WireDecoder.decode(line: invalidUTF8) {
            #expect(failure.error.code == .invalidUTF8)
        } else {
            Issue.record("invalid UTF-8 was accepted")
        }
    }

    @Test func theRefIsEchoedEvenWhenTheRequestIsInvalid() {
        guard case .failure(let failure) = WireDecoder.decode(line: #"{"op":"nope","ref":{"n":1}}"#) else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.ref == ["n": 1])
        let reply = WireEncoder.failure(ref: failure.ref, error: failure.error).serialized
        #expect(reply.hasPrefix(#"{"error":{"code":"unknown_op","field":"op","message":"#))
        #expect(reply.hasSuffix(#""ok":false,"ref":{"n":1}}"#))
    }

    @Test func targetsDefaultToTheDefaultScene() {
        #expect(decoded(#"{"op":"dismiss","reuseId":"r"}"#) == .command(.dismiss(.reuseID("r", scene: "default"))))
        #expect(decoded(#"{"op":"remove","reuseId":"r","scene":"s"}"#) == .command(.remove(.reuseID("r", scene: "s"))))
    }

    @Test func patchesDistinguishAbsentFromNull() {
        let request = decoded(#"{"op":"update","id":3,"toast":{"title":null,"duration":null,"progress":"none"}}"#)
        let patch = ToastPatch(title: .some(nil), duration: .some(nil), progress: ToastProgress.none)
        #expect(request == .command(.update(.id(3), patch)))
    }
}

@Suite("JSON encoding")
struct JSONEncodingTests {
    @Test func outputIsCanonical() {
        let value: JSONValue = ["b": 1, "a": [true, nil, 0.5, 2.0], "é": "x", "Z": "y"]
        #expect(value.serialized == #"{"Z":"y","a":[true,null,0.5,2],"b":1,"é":"x"}"#)
    }

    @Test func controlCharactersAreEscaped() {
        let value = JSONValue.string("a\"b\\c\n\t\u{1B}[31m\u{7F}")
        #expect(value.serialized == #""a\"b\\c\n\t\u001b[31m\u007f""#)
        #expect((try? JSONValue.parse(value.serialized)) == value)
    }

    @Test func parseAndSerializeRoundTrip() throws {
        let text = #"{"a":[1,-2,3.25,"x",{"y":null}],"b":false}"#
        #expect(try JSONValue.parse(text).serialized == text)
    }
}

@Suite("Event lines written directly")
struct EventLineTests {
    /// The direct writer must give exactly the canonical bytes of the
    /// `JSONValue` form, for every kind of event and every field a toast
    /// can carry: the scheduler property test's random sessions make them.
    @Test func eventLinesMatchTheCanonicalForm() async {
        await propertyCheck(count: 60, input: SchedulerPropertyTests.steps) { steps in
            for event in SchedulerPropertyTests.run(steps) {
                let direct = String(decoding: WireEncoder.eventLine(event), as: UTF8.self)
                #expect(direct == WireEncoder.event(event).serialized + "\n")
            }
        }
    }

    @Test func textNeedingEscapesIsEscapedAlike() {
        let record = ToastRecord(
            id: 7, toast: Toast(message: "a\"b\\c\n\u{1B}[2J é 🍞", title: "t\u{7F}", icon: "🍞", reuseID: "r\u{0}", source: "s\t"),
            state: .shown, repeatCount: 2, createdAt: 5, presentedAt: 6, expiresAt: 9
        )
        let event = ToastEvent(seq: 3, time: 6, kind: .action(record, actionID: "x\"y"))
        #expect(String(decoding: WireEncoder.eventLine(event), as: UTF8.self) == WireEncoder.event(event).serialized + "\n")
        var flagged = record
        flagged.toast.resident = true
        flagged.toast.transient = true
        let flaggedEvent = ToastEvent(seq: 4, time: 6, kind: .updated(flagged))
        let line = String(decoding: WireEncoder.eventLine(flaggedEvent), as: UTF8.self)
        #expect(line == WireEncoder.event(flaggedEvent).serialized + "\n")
        #expect(line.contains(#""resident":true"#) && line.contains(#""transient":true"#))
    }
}

extension EventLineTests {
    /// Integers are written digit by digit, with no String between: the
    /// same text as Swift's own, at the edges and in between.
    @Test(arguments: [Int64.min, Int64.min + 1, -1_000_000_000_000, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_764_000_000_000, Int64.max - 1, Int64.max])
    func integersAreWrittenAsSwiftWritesThem(value: Int64) {
        let out = LineWriter.line { out in
            out.byte(UInt8(ascii: "x"))
            out.integer(value)
        }
        #expect(String(decoding: out, as: UTF8.self) == "x\(value)")
    }

    /// Every count of digits, either side of each power of ten, and random
    /// values of every size, after text of every length (the digits are
    /// written at the end of the room and moved into place).
    @Test func integersOfEveryLengthAreWrittenAsSwiftWritesThem() {
        var values: [Int64] = []
        var power: Int64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
            if power <= Int64.max / 10 { power *= 10 }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Int64(bitPattern: state) >> Int64(state % 63))
        }
        values += [Int64.min, Int64.max]
        for (index, value) in values.enumerated() {
            let prefix = String(repeating: "y", count: index % 23)
            let out = LineWriter.line(scratch: 8) { out in
                for byte in prefix.utf8 { out.byte(byte) }
                out.integer(value)
                out.byte(UInt8(ascii: ","))
            }
            #expect(String(decoding: out, as: UTF8.self) == "\(prefix)\(value),")
        }
    }
}

extension EventLineTests {
    /// Replies that carry a toast are written directly too: same bytes.
    @Test func replyLinesMatchTheCanonicalForm() async {
        await propertyCheck(count: 60, input: SchedulerPropertyTests.steps) { steps in
            var machine = SchedulerStateMachine(configuration: SchedulerPropertyTests.configuration)
            for (index, step) in steps.enumerated() where SchedulerPropertyTests.advance(step) == nil {
                let refs: [JSONValue?] = [nil, .int(Int64(index)), .string("r\"\(index)"), ["b": 1, "a": [true]]]
                let ref = refs[index % refs.count]
                guard case .success(let reply) = machine.handle(SchedulerPropertyTests.command(step), now: Int64(index)).reply else { continue }
                let direct = String(decoding: WireEncoder.replyLine(ref: ref, reply), as: UTF8.self)
                #expect(direct == WireEncoder.ok(ref: ref, result: WireEncoder.result(reply)).serialized + "\n")
            }
        }
    }
}

@Suite("Failure lines written directly")
struct FailureLineTests {
    /// Every code, with and without a field and a ref, with texts that need
    /// escaping: the direct line is the canonical bytes of the value.
    @Test(arguments: ToastError.Code.allCases)
    func failureLinesMatchTheCanonicalForm(code: ToastError.Code) {
        let refs: [JSONValue?] = [nil, 7, "r\"1", ["nested": [1, 2], "a": nil], 1.5]
        let fields: [String?] = [nil, "toast.actions[1].id", "\u{1B}[31m\n"]
        for ref in refs {
            for field in fields {
                let error = ToastError(code, "bad \"input\"\t\u{0}é🍞", field: field)
                let direct = String(decoding: WireEncoder.failureLine(ref: ref, error: error), as: UTF8.self)
                #expect(direct == WireEncoder.failure(ref: ref, error: error).serialized + "\n")
            }
        }
    }

    /// A line that does not decode is answered with that line.
    @Test func aRefusedLineIsAnsweredDirectly() {
        var service = ToastService()
        let response = service.respond(toLine: Array(#"{"op":"add","ref":3,"toast":{}}"#.utf8), defaultSource: nil, now: 0)
        let error = ToastError(.missingField, "the field 'message' is required", field: "toast.message")
        #expect(response.reply == WireEncoder.failure(ref: 3, error: error))
        #expect(response.replyLine == WireEncoder.failureLine(ref: 3, error: error))
    }
}

@Suite("Directives carry the request's ref")
struct DirectiveRefTests {
    @Test(arguments: [#"{"op":"status","ref":"s1"}"#, #"{"op":"subscribe","ref":"s1","snapshot":false}"#])
    func theCallerRepliesWithTheRef(line: String) {
        var service = ToastService()
        let response = service.respond(toLine: Array(line.utf8), defaultSource: nil, now: 0)
        #expect(response.directive != nil)
        #expect(response.reply == nil)
        #expect(response.ref == "s1")
    }
}

@Suite("Snapshot lines written directly")
struct SnapshotLineTests {
    /// A scheduler after a random session, left as it is: shown and queued
    /// toasts of every kind in several stacks, maybe paused, maybe modes.
    static func scheduler(_ steps: [Int]) -> SchedulerStateMachine {
        var machine = SchedulerStateMachine(configuration: SchedulerPropertyTests.configuration)
        var now: ToastInstant = 0
        for step in steps {
            if let advance = SchedulerPropertyTests.advance(step) {
                now += advance
                _ = machine.handle(.tick, now: now)
            } else {
                _ = machine.handle(SchedulerPropertyTests.command(step), now: now)
            }
        }
        _ = machine.handle(.setModes(steps.count % 3 == 0 ? [] : ["dnd", "a\"b"]), now: now)
        return machine
    }

    /// `list`'s reply and the `snapshot` event, written directly, are
    /// exactly the canonical bytes of their `JSONValue` forms, with and
    /// without a filter and a ref.
    @Test func snapshotLinesMatchTheCanonicalForm() async {
        let filters = [EventFilter(), EventFilter(scene: "default"), EventFilter(roles: [.info, .failure])]
        let refs: [JSONValue?] = [nil, 7, "r\"1", ["nested": [1, 2]]]
        await propertyCheck(count: 40, input: SchedulerPropertyTests.steps) { steps in
            let machine = Self.scheduler(steps)
            for (index, filter) in filters.enumerated() {
                let snapshot = machine.snapshot(filter: filter)
                let ref = refs[(steps.count + index) % refs.count]
                let reply = String(decoding: WireEncoder.snapshotReplyLine(ref: ref, snapshot, instance: "i\\1"), as: UTF8.self)
                #expect(reply == WireEncoder.ok(ref: ref, result: WireEncoder.snapshot(snapshot, instance: "i\\1")).serialized + "\n")
                let event = String(decoding: WireEncoder.snapshotEventLine(snapshot, instance: "i", time: 42), as: UTF8.self)
                #expect(event == WireEncoder.snapshotEvent(snapshot, instance: "i", time: 42).serialized + "\n")
            }
        }
    }

    /// The service answers `list` with those bytes, and its reply's value
    /// (what in-process clients get) is the same state.
    @Test func listIsAnsweredWithTheDirectLine() throws {
        var service = ToastService(instance: "x")
        _ = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"one","title":"t"}}"#.utf8), defaultSource: "s", now: 1)
        _ = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"two","role":"failure"}}"#.utf8), defaultSource: "s", now: 2)
        let response = service.respond(toLine: Array(#"{"op":"list","ref":3}"#.utf8), defaultSource: nil, now: 3)
        let line = try #require(response.replyLine)
        let expected = WireEncoder.snapshotReplyLine(ref: 3, service.scheduler.snapshot(), instance: "x")
        #expect(line == expected)
        #expect(try JSONValue.parse(line.dropLast()) == response.reply)
        guard case .array(let toasts)? = response.reply?["result"]?["toasts"] else {
            Issue.record("no toasts in \(String(describing: response.reply))")
            return
        }
        #expect(toasts.map { $0["message"] } == ["one", "two"])
    }
}
