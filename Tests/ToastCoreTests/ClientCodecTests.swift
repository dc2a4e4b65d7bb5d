// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing
import ToastCore

/// The client's half of the codec: every request a client can build reads
/// back, through the daemon's decoder, as the same request; every event the
/// daemon writes reads back, through the client's decoder, as the same event.
@Suite("The client codec")
struct ClientCodecTests {
    static let requests: [Request] = [
        .hello(Request.Hello(version: 1, client: "kit", source: "backup", bindSource: true)),
        .command(.add(Toast(message: "m", title: "t", role: .failure, duration: .seconds(1.5), alignment: .bottom, scene: "ide", reuseID: "r", progress: .fraction(0.25), dismissible: false, closeButton: true, actions: [ToastAction(id: "a", label: "A")], source: "s", cancellation: .always, invalidation: [.contextChanged]))),
        .command(.update(.id(3), ToastPatch(title: .some(nil), icon: "i", duration: .some(nil), progress: ToastProgress.none, actions: []))),
        .command(.update(.reuseID("r", scene: "ide"), ToastPatch(message: "new"))),
        .command(.remove(.reuseID("r", scene: Toast.defaultScene))),
        .command(.dismiss(.id(9))),
        .command(.invoke(.id(2), actionID: "undo")),
        .command(.clear(ClearScope(scene: "ide", alignment: .center, force: true))),
        .command(.pause(level: nil)), .command(.pause(level: 90)), .command(.resume),
        .command(.endSource("s")),
        .list(EventFilter(scene: "ide", roles: [.failure, .info])),
        .subscribe(Request.Subscribe(filter: EventFilter(roles: [.success]), snapshot: false, since: 42, instance: "abc")),
        .status, .history(ToastHistory.Query(filter: EventFilter(scene: "x"), source: "s", since: 5, limit: 3)),
        .restore(7), .restore(nil), .clearHistory(), .clearHistory(9), .togglePause(level: 40), .togglePause(level: nil),
        .mode(.list), .mode(.set(["a", "b"])), .mode(.add("a")), .mode(.remove("a")), .mode(.toggle("a")),
        .inhibit(reason: "talk"), .inhibit(reason: nil), .uninhibit, .reload,
    ]

    @Test(arguments: requests)
    func everyRequestReadsBackAsItself(request: Request) throws {
        let line = WireEncoder.line(WireEncoder.request(request, ref: 7))
        let decoded = try WireDecoder.decode(line: line).get()
        #expect(decoded.request == request)
        #expect(decoded.ref == 7)
    }

    /// An add's envelope keeps which fields the sender gave, even when they
    /// equal the defaults: role defaults must not overwrite them.
    @Test(arguments: [ToastFieldSet.all, [], [.duration], [.duration, .alignment], [.duration, .dismissible]])
    func anAddsExplicitFieldsReadBackAsExplicit(defaulted: ToastFieldSet) throws {
        let envelope = RequestEnvelope(ref: "r", request: .command(.add(Toast(message: "m"))), defaulted: defaulted)
        let decoded = try WireDecoder.decode(line: WireEncoder.line(WireEncoder.request(envelope))).get()
        // A toast without a duration always reads as defaulted: the wire has no "the default, explicitly".
        #expect(decoded == RequestEnvelope(ref: "r", request: envelope.request, defaulted: defaulted.union(.duration)))
    }

    @Test func eventsReadBackAsThemselves() async {
        await propertyCheck(count: 50, input: SchedulerPropertyTests.steps) { steps in
            var scheduler = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 2))
            var now: ToastInstant = 0
            for step in steps {
                if let time = SchedulerPropertyTests.advance(step) { now += time }
                for event in scheduler.handle(SchedulerPropertyTests.command(step), now: now).events {
                    let value = try? JSONValue.parse(String(decoding: WireEncoder.eventLine(event), as: UTF8.self))
                    let decoded = value.flatMap { try? WireDecoder.decodeEvent($0) }
                    // The wire has no placement: compare everything else.
                    #expect(decoded?.seq == event.seq && decoded?.time == event.time && decoded?.name == event.name)
                    #expect(decoded?.record?.toast == event.record?.toast && decoded?.record?.id == event.record?.id)
                    #expect(decoded?.record?.expiresAt == event.record?.expiresAt && decoded?.record?.state == event.record?.state)
                }
            }
        }
    }

    @Test func aReplysErrorKeepsItsCode() {
        let reply: JSONValue = ["ok": false, "error": ["code": "not_found", "message": "gone", "field": "id"]]
        guard case .failure(let error) = WireDecoder.reply(reply) else {
            Issue.record("an error reply read as a success")
            return
        }
        #expect(error == ToastError(.notFound, "gone", field: "id"))
        #expect((try? WireDecoder.reply(["ok": true, "result": ["id": 1]]).get()) == ["id": 1])
    }
}
