// SPDX-License-Identifier: Apache-2.0
import NIOCore
import Synchronization
import Testing
import ToastCore

@testable import ToastDaemon

/// The freedesktop bridge's way into the hub: commands carried out in
/// process like a connection's lines, and every event told to watchers.
@Suite("In-process clients of the hub")
struct InProcessClientTests {
    /// What the callbacks were told, in order.
    final class Log: Sendable {
        let outcomes = Mutex<[Result<SchedulerReply, ToastError>]>([])
        let events = Mutex<[ToastEvent]>([])
    }

    static func perform(_ request: Request, on harness: HubChannelTests.Harness, log: Log, defaulted: ToastFieldSet = []) {
        InProcessClient(hub: harness.hub).perform(RequestEnvelope(request: request, defaulted: defaulted), source: "dbus") { outcome in
            log.outcomes.withLock { $0.append(outcome) }
        }
        harness.loop.run()
    }

    @Test func anAddIsCarriedOutLikeALineAndEverySubscriberSeesIt() throws {
        let harness = try HubChannelTests.Harness()
        let subscriber = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: subscriber)
        _ = try HubChannelTests.Harness.lines(subscriber)
        let log = Log()
        InProcessClient(hub: harness.hub).watch { event in log.events.withLock { $0.append(event) } }
        harness.loop.run()

        Self.perform(.command(.add(Toast(message: "from the bus", duration: .indefinite))), on: harness, log: log)
        let outcome = try #require(log.outcomes.withLock { $0 }.first)
        guard case .success(.added(let record, deduped: false, _)) = outcome else {
            Issue.record("expected an add, got \(outcome)")
            return
        }
        #expect(record.id == 1)
        // A toast without a source gets the client's.
        #expect(record.toast.source == "dbus")
        #expect(try HubChannelTests.Harness.lines(subscriber).map { $0["event"] } == ["presented"])
        #expect(log.events.withLock { $0.map(\.name) } == ["presented"])

        // The same toast again is the same toast (dedupe), ×2.
        Self.perform(.command(.add(Toast(message: "from the bus", duration: .indefinite))), on: harness, log: log)
        guard case .success(.added(let again, deduped: true, _)) = log.outcomes.withLock({ $0.last! }) else {
            Issue.record("expected a dedupe")
            return
        }
        #expect(again.id == 1 && again.repeatCount == 2)
    }

    @Test func refusalsComeBackAsTypedErrors() throws {
        let harness = try HubChannelTests.Harness()
        let log = Log()
        Self.perform(.command(.update(.id(99), ToastPatch(message: "x"))), on: harness, log: log)
        Self.perform(.status, on: harness, log: log)
        let outcomes = log.outcomes.withLock { $0 }
        #expect(outcomes.count == 2)
        guard case .failure(let missing) = outcomes[0], case .failure(let notACommand) = outcomes[1] else {
            Issue.record("expected two refusals, got \(outcomes)")
            return
        }
        #expect(missing.code == .notFound)
        #expect(notACommand.code == .invalidRequest)
    }

    /// Watchers hear of toasts whatever added them, and how each ended.
    @Test func watchersHearOfEveryToastAndItsEnd() throws {
        let harness = try HubChannelTests.Harness()
        let log = Log()
        InProcessClient(hub: harness.hub).watch { event in log.events.withLock { $0.append(event) } }
        harness.loop.run()
        let client = try harness.connect()
        try harness.send([.command(.add(Toast(message: "from a socket", duration: .indefinite)))], on: client)
        try harness.send([.command(.dismiss(.id(1)))], on: client)
        let events = log.events.withLock { $0 }
        #expect(events.map(\.name) == ["presented", "dismissed"])
        #expect(events.last.map { if case .dismissed(_, .user) = $0.kind { true } else { false } } == true)
    }

    @Test func aStoppingDaemonRefusesInProcessCommands() throws {
        let harness = try HubChannelTests.Harness()
        _ = harness.hub.shutdown(reason: "test")
        harness.loop.run()
        let log = Log()
        Self.perform(.command(.add(Toast(message: "late"))), on: harness, log: log)
        guard case .failure(let error)? = log.outcomes.withLock({ $0.first }) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .shuttingDown)
    }
}
