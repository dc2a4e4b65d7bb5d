// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOEmbedded
import Testing
import ToastCore

@testable import ToastDaemon

/// The hub and the connection pipeline in process: EmbeddedChannels on an
/// EmbeddedEventLoop, whose time moves only when a test moves it.
@Suite("The hub on embedded channels")
struct HubChannelTests {
    /// A hub with the defaults in force, and clients on its loop.
    final class Harness {
        let loop = EmbeddedEventLoop()
        let hub: ToastHub
        static let maxLineBytes = 8_192

        init(
            bufferBytes: Int = 1 << 20, lagTimeout: TimeAmount = .seconds(10), maxConnections: Int = 8, resumeEvents: Int = 1_000,
            logger: Logger? = nil
        ) throws {
            hub = Self.hub(
                on: loop, bufferBytes: bufferBytes, lagTimeout: lagTimeout, maxConnections: maxConnections, resumeEvents: resumeEvents,
                logger: logger
            )
            Self.start(hub)
            loop.run()
        }

        /// A hub on `loop`, not yet started (`start(_:)`, on its loop).
        static func hub(
            on loop: any EventLoop, bufferBytes: Int = 1 << 20, lagTimeout: TimeAmount = .seconds(10), maxConnections: Int = 8,
            resumeEvents: Int = 1_000, logger: Logger? = nil
        ) -> ToastHub {
            let limits = ToastHub.Limits(
                maxConnections: maxConnections, subscriberBufferBytes: bufferBytes, lagTimeout: lagTimeout,
                resumeEvents: resumeEvents, historySize: 10, maxLineBytes: maxLineBytes
            )
            var quiet = Logger(label: "test")
            quiet.logLevel = .warning
            let logger = logger ?? quiet
            // On the EmbeddedEventLoop, every write is encoded on it.
            return ToastHub(loop: loop, configuration: SchedulerConfiguration(), limits: limits, logger: logger, encodesOffLoop: false)
        }

        /// Starts `hub` with the defaults in force; on its loop.
        static func start(_ hub: ToastHub) {
            hub.install(ConfigurationSource(path: nil, isExplicit: false).resolve(.defaults)!)
            _ = hub.start(endingSources: [])
        }

        /// The daemon's own pipeline for a connection to `hub`.
        static func handlers(for hub: ToastHub) -> [any ChannelHandler] {
            [
                ByteToMessageHandler(LineFramer(maxLineBytes: maxLineBytes)),
                ConnectionHandler(hub: hub, source: "test"),
            ]
        }

        /// A client connection through the daemon's own pipeline; `extra`
        /// handlers sit in front of it (nearest the socket).
        func connect(_ extra: [any ChannelHandler] = []) throws -> EmbeddedChannel {
            let channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandlers(extra)
            try channel.pipeline.syncOperations.addHandlers(Self.handlers(for: hub))
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/embedded.sock")).wait()
            return channel
        }

        /// Sends lines in one read burst (one step) and runs the loop.
        func send(_ lines: [Request], on channel: EmbeddedChannel) throws {
            var bytes: [UInt8] = []
            for request in lines { bytes += WireEncoder.line(WireEncoder.request(request)) }
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            channel.pipeline.fireChannelReadComplete()
            loop.run()
        }

        /// Every line written to the channel so far, parsed.
        static func lines(_ channel: EmbeddedChannel) throws -> [JSONValue] {
            var out: [JSONValue] = []
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
                let text = buffer.readString(length: buffer.readableBytes) ?? ""
                for line in text.split(separator: "\n") { out.append(try JSONValue.parse(String(line))) }
            }
            return out
        }
    }

    static func adds(_ count: Int, scene: String = "s") -> [Request] {
        (0..<count).map { .command(.add(Toast(message: "toast \($0) " + String(repeating: "x", count: 100), duration: .indefinite, scene: scene))) }
    }

    @Test func aRequestIsAnsweredAndItsEventsReachASubscriber() throws {
        let harness = try Harness()
        let watcher = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: watcher)
        #expect(try Harness.lines(watcher).first?["ok"] == true)
        let client = try harness.connect()
        try harness.send(Self.adds(1), on: client)
        #expect(try Harness.lines(client).first?["result"]?["id"] == 1)
        #expect(try Harness.lines(watcher).map { $0["event"] } == ["presented"])
    }

    /// A burst far larger than the subscriber's buffer, in one step: the
    /// subscriber falls behind, catches up from the backlog as its writes
    /// complete, and gets every event once, in order.
    @Test func aSubscriberThatFallsBehindCatchesUpInOrder() throws {
        let harness = try Harness(bufferBytes: 4_096)
        let watcher = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: watcher)
        _ = try Harness.lines(watcher)
        let client = try harness.connect()
        try harness.send(Self.adds(200), on: client)
        var events: [JSONValue] = []
        for _ in 0..<1_000 {
            events += try Harness.lines(watcher)
            harness.loop.run()
            if events.count >= 200 { break }
        }
        #expect(events.count == 200)
        #expect(events.compactMap { $0["seq"]?.intValue } == Array(1...200).map(Int64.init))
        #expect(!events.contains { $0["event"] == "lagged" })
    }

    /// A pipelined burst's replies, and the adder's own events among them,
    /// go out as a few joined writes, not one per line: in order, and no
    /// write larger than the early-flush size. A subscriber's events stay
    /// one write each, since its buffer bound counts them one by one.
    @Test func aBurstsRepliesAreJoinedIntoFewWritesInOrder() throws {
        let harness = try Harness()
        let watcher = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: watcher)
        _ = try Harness.lines(watcher)
        let client = try harness.connect()
        // The last two end the first toast: its adder hears that, after the reply.
        try harness.send(Self.adds(300) + [.command(.remove(.id(1)))], on: client)
        var writes: [ByteBuffer] = []
        while let buffer = try client.readOutbound(as: ByteBuffer.self) { writes.append(buffer) }
        let lines = try writes.flatMap { write in
            try String(buffer: write).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        }
        #expect(lines.count == 302)
        #expect(lines.prefix(300).compactMap { $0["result"]?["id"]?.intValue } == Array(1...300).map(Int64.init))
        #expect(lines[300]["ok"] == true && lines[300]["result"]?["id"] == 1, "the remove's reply")
        #expect(lines[301]["event"] == "dismissed" && lines[301]["toast"]?["id"] == 1, "then the adder hears its toast end")
        #expect(writes.count <= 4, "\(writes.count) writes for \(lines.count) lines")
        let flushBytes = SubscriberStateMachine.Limits(bufferBytes: 0).burstFlushBytes
        #expect(writes.allSatisfy { $0.readableBytes <= flushBytes })
        var events = 0
        while let buffer = try watcher.readOutbound(as: ByteBuffer.self) {
            #expect(buffer.readableBytesView.filter { $0 == UInt8(ascii: "\n") }.count == 1)
            events += 1
        }
        #expect(events == 302, "300 queued or presented, the dismissal, the next presented")
    }

    /// Once a burst has written the threshold, the heap is trimmed at the
    /// first quiet period, not while steps keep coming, and only once.
    @Test func theHeapIsTrimmedOnceABurstIsOver() throws {
        let harness = try Harness()
        var trims = 0
        harness.hub.burstTrim = BurstTrim(thresholdBytes: 20_000)
        harness.hub.releaseFreePages = { trims += 1 }
        let client = try harness.connect()
        try harness.send(Self.adds(100, scene: "burst"), on: client)
        #expect(try Harness.lines(client).count == 100, "over 20,000 bytes of replies")
        for round in 0..<3 {
            try harness.send(Self.adds(10, scene: "more\(round)"), on: client)
            harness.loop.advanceTime(by: ToastHub.burstTrimQuiet)
            #expect(trims == 0, "steps came within the last quiet period")
        }
        harness.loop.advanceTime(by: ToastHub.burstTrimQuiet)
        #expect(trims == 1)
        harness.loop.advanceTime(by: .seconds(5))
        #expect(trims == 1, "an idle hub arms no timer")
    }

    /// A client that queued many toasts and left: the router forgets them,
    /// and the heap is trimmed once things are quiet, although the close
    /// wrote nothing. A client that added a few arms nothing.
    @Test func theHeapIsTrimmedAfterAClientThatQueuedManyLeaves() throws {
        let harness = try Harness()
        var trims = 0
        let threshold = 200 * ToastHub.bytesPerForgottenToast
        harness.hub.burstTrim = BurstTrim(thresholdBytes: threshold)
        harness.hub.releaseFreePages = { trims += 1 }
        let few = try harness.connect()
        try harness.send(Self.adds(5, scene: "few"), on: few)
        // `close`, not `finish`: finishing cancels the loop's timers.
        try few.close().wait()
        harness.loop.run()
        harness.loop.advanceTime(by: ToastHub.burstTrimQuiet * 3)
        #expect(trims == 0, "five toasts forgotten, and a few replies: under the threshold")
        let many = try harness.connect()
        try harness.send(Self.adds(200, scene: "many"), on: many)
        harness.loop.advanceTime(by: ToastHub.burstTrimQuiet * 3)
        let afterReplies = trims
        try many.close().wait()
        harness.loop.run()
        harness.loop.advanceTime(by: ToastHub.burstTrimQuiet * 2)
        #expect(trims == afterReplies + 1, "200 toasts forgotten: trimmed once the close was quiet")
    }

    /// Every request line needs what swift-nio holds for its connection
    /// (the request hold's bound), and asking the channel is over a
    /// thousand instructions: it is asked once a read burst, after the
    /// replies written since, not once a line.
    @Test func theChannelIsAskedWhatItHoldsOnceABurst() throws {
        let harness = try Harness()
        let client = try harness.connect()
        let measure = harness.hub.bufferedBytes
        var asked = 0
        harness.hub.bufferedBytes = { channel in
            if channel === client { asked += 1 }
            return measure(channel)
        }
        for burst in 1...3 {
            asked = 0
            try harness.send(Self.adds(50, scene: "burst-\(burst)"), on: client)
            #expect(asked == 1, "burst \(burst)")
            let replies = try Harness.lines(client)
            #expect(replies.count == 50 && replies.allSatisfy { $0["ok"] == true }, "\(replies.first { $0["ok"] != true }?.serialized ?? "")")
        }
    }

    /// A read held behind the bound stops the socket's reading once, not
    /// once a line, and reading starts again once, when the held lines are
    /// answered.
    @Test func aHeldReadStopsReadingOnce() throws {
        let harness = try Harness()
        let client = try harness.connect()
        let set = harness.hub.setAutoRead
        var changes: [Bool] = []
        harness.hub.setAutoRead = { channel, on in
            if channel === client { changes.append(on) }
            set(channel, on)
        }
        client.isWritable = false
        try harness.send(Self.adds(50, scene: "held"), on: client)
        #expect(changes == [false])
        #expect(try Harness.lines(client).isEmpty, "nothing answered while the channel cannot be written")
        client.isWritable = true
        client.pipeline.fireChannelWritabilityChanged()
        harness.loop.run()
        #expect(changes == [false, true])
        let replies = try Harness.lines(client)
        #expect(replies.count == 50 && replies.allSatisfy { $0["ok"] == true })
        try harness.send(Self.adds(5, scene: "after"), on: client)
        #expect(changes == [false, true], "a read answered at once changes nothing")
        #expect(try Harness.lines(client).count == 5)
    }

    /// A subscriber whose writes never complete is disconnected after the
    /// lag timeout; the hub stays up and serves the others.
    @Test func aStalledSubscriberIsDisconnectedAtTheLagTimeout() throws {
        let harness = try Harness(bufferBytes: 4_096, lagTimeout: .seconds(5))
        let stall = StallingWriter()
        let stalled = try harness.connect([stall])
        let measure = harness.hub.bufferedBytes
        harness.hub.bufferedBytes = { $0 === stalled ? stall.heldBytes : measure($0) }
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: stalled)
        let client = try harness.connect()
        try harness.send(Self.adds(100), on: client)
        #expect(stalled.isActive)
        harness.loop.advanceTime(by: .seconds(4))
        #expect(stalled.isActive, "not yet")
        harness.loop.advanceTime(by: .seconds(2))
        #expect(!stalled.isActive, "disconnected once the timeout passed without progress")
        try harness.send(Self.adds(1, scene: "after"), on: client)
        #expect(try Harness.lines(client).last?["ok"] == true)
    }

    /// Past the limit, a few spare connections take what a person needs
    /// to take back control (status, dismiss, pause...), and nothing else;
    /// past those, a connection is refused with one line.
    @Test func spareConnectionsTakeOnlyWhatAPersonNeeds() throws {
        let harness = try Harness(maxConnections: 1)
        let regular = try harness.connect()
        try harness.send(Self.adds(1), on: regular)
        #expect(try Harness.lines(regular).first?["ok"] == true)
        let spare = try harness.connect()
        try harness.send([.status, .command(.add(Toast(message: "more"))), .command(.dismiss(.id(1)))], on: spare)
        let lines = try Harness.lines(spare)
        #expect(lines.count == 3)
        #expect(lines.first?["ok"] == true)
        #expect(lines.dropFirst().first?["error"]?["code"] == "too_many_connections")
        #expect(lines.last?["ok"] == true, "dismiss gets through: \(lines.last?.serialized ?? "")")
        #expect(spare.isActive)
    }

    /// A connection that says nothing is closed after its first seconds;
    /// one that spoke (a subscriber waiting for events) is not.
    @Test func aConnectionThatSaysNothingIsClosed() throws {
        let harness = try Harness()
        let silent = try harness.connect()
        let watcher = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: watcher)
        _ = try Harness.lines(watcher)
        harness.loop.advanceTime(by: Admission.firstLineTimeout - .milliseconds(1))
        #expect(silent.isActive)
        harness.loop.advanceTime(by: .milliseconds(1))
        #expect(try Harness.lines(silent).first?["error"]?["code"] == "idle_timeout")
        #expect(!silent.isActive)
        harness.loop.advanceTime(by: .seconds(60))
        #expect(watcher.isActive)
    }

    @Test func aConnectionOverTheLimitIsRefusedWithOneLine() throws {
        let harness = try Harness(maxConnections: 1)
        _ = try harness.connect()
        for _ in 0..<Admission.spares { _ = try harness.connect() }
        let refused = try harness.connect()
        harness.loop.run()
        let lines = try Harness.lines(refused)
        #expect(lines.count == 1)
        #expect(lines.first?["error"]?["code"] == "too_many_connections")
        #expect(!refused.isActive)
    }

    @Test func thePeerRefusalHandlerWritesItsErrorAndCloses() throws {
        let channel = EmbeddedChannel(handler: PeerRefusalHandler(ToastError(.forbidden, "not yours")))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/embedded.sock")).wait()
        try channel.writeInbound(ByteBuffer(string: "{\"op\":\"status\"}\n"))
        let lines = try Harness.lines(channel)
        #expect(lines.count == 1)
        #expect(lines.first?["error"]?["code"] == "forbidden")
        #expect(!channel.isActive)
    }

    @Test func aLineTooLongIsRefusedAndTheConnectionGoesOn() throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.writeInbound(ByteBuffer(string: String(repeating: "x", count: Harness.maxLineBytes + 10) + "\n"))
        client.pipeline.fireChannelReadComplete()
        harness.loop.run()
        let refusal = try Harness.lines(client).first
        #expect(refusal?["error"]?["code"] == "line_too_long")
        #expect(refusal?["error"]?["message"]?.stringValue?.contains("\(Harness.maxLineBytes) bytes") == true, "the limit named is the one in force")
        try harness.send([.status], on: client)
        #expect(try Harness.lines(client).first?["ok"] == true)
    }

    @Test func shutdownTellsSubscribersAndClosesEveryone() throws {
        let harness = try Harness()
        let watcher = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: watcher)
        _ = try Harness.lines(watcher)
        let plain = try harness.connect()
        let done = harness.hub.shutdown(reason: "test")
        harness.loop.run()
        try done.wait()
        #expect(try Harness.lines(watcher).map { $0["event"] } == ["shutdown"])
        #expect(try Harness.lines(plain).isEmpty)
        #expect(!watcher.isActive && !plain.isActive)
    }

    /// A subscriber that takes nothing cannot hold the daemon's exit: once
    /// the grace has passed it is closed with its bytes unsent, and the
    /// others are closed as usual.
    @Test func shutdownClosesASubscriberThatTakesNothingAfterTheGrace() throws {
        let harness = try Harness()
        let stall = StallingWriter()
        let stalled = try harness.connect([stall])
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: stalled)
        let watcher = try harness.connect()
        try harness.send([.subscribe(Request.Subscribe(snapshot: false))], on: watcher)
        _ = try Harness.lines(watcher)
        let done = harness.hub.shutdown(reason: "test")
        harness.loop.run()
        #expect(!watcher.isActive, "closed once written")
        #expect(stalled.isActive, "still waiting within the grace")
        let finished = Flag()
        done.whenComplete { _ in finished.raised = true }
        harness.loop.advanceTime(by: ToastHub.shutdownGrace - .milliseconds(1))
        #expect(!finished.raised)
        harness.loop.advanceTime(by: .milliseconds(1))
        #expect(!stalled.isActive)
        #expect(finished.raised)
    }
}

/// Set from a callback on the embedded loop, which runs on the test's thread.
extension HubChannelTests {
    /// The stranger's finding (issue #38): a subscriber that added a toast
    /// and then fell so far behind that it got `lagged` never learned how
    /// that toast ended, though 6.3 says the adder's events are never
    /// dropped for lag. Now they follow `lagged`, before the snapshot.
    @Test func aLaggingAdderStillLearnsHowItsToastEnded() throws {
        let harness = try Harness(bufferBytes: 65_536, resumeEvents: 50)
        let valve = ValveWriter()
        let adder = try harness.connect([valve])
        let measure = harness.hub.bufferedBytes
        harness.hub.bufferedBytes = { $0 === adder ? valve.heldBytes : measure($0) }
        try harness.send(
            [.subscribe(Request.Subscribe(snapshot: false)), .command(.add(Toast(message: "mine", duration: .indefinite, scene: "x")))],
            on: adder
        )
        let other = try harness.connect()
        let big = String(repeating: "b", count: 2_000)
        func churn(from first: Int) throws {
            for index in 0..<300 {
                let id = ToastID(first + index)
                try harness.send([.command(.add(Toast(message: "\(id) \(big)", duration: .indefinite))), .command(.remove(.id(id)))], on: other)
            }
        }
        try churn(from: 2)
        try harness.send([.command(.remove(.id(1)))], on: other)
        try churn(from: 302)
        _ = try Harness.lines(other)
        valve.open()
        harness.loop.run()
        var lines: [JSONValue] = []
        for _ in 0..<100 {
            lines += try Harness.lines(adder)
            harness.loop.run()
        }
        let names = lines.map { $0["event"]?.stringValue ?? ($0["ok"] != nil ? "reply" : "?") }
        let lagged = try #require(names.firstIndex(of: "lagged"), "\(names.prefix(20))")
        let snapshot = try #require(names.firstIndex(of: "snapshot"))
        let mine = lines.indices.filter { lines[$0]["event"] == "dismissed" && lines[$0]["toast"]?["id"] == 1 }
        #expect(mine.count == 1, "the adder learns once how its toast ended: \(names.count) lines")
        #expect(mine.first.map { $0 > lagged && $0 < snapshot } == true, "after lagged, before the snapshot")
        #expect(lines[mine[0]]["reason"] == "removed")
    }
}

/// A socket whose peer reads nothing until `open`: writes are held, then
/// let through and completed in order.
final class ValveWriter: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var context: ChannelHandlerContext?
    private var isOpen = false
    private(set) var heldBytes = 0

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if isOpen { return context.write(data, promise: promise) }
        held.append((data, promise))
        heldBytes += unwrapOutboundIn(data).readableBytes
    }

    func flush(context: ChannelHandlerContext) {
        if isOpen { context.flush() }
    }

    func open() {
        guard let context else { return }
        isOpen = true
        let writes = held
        held = []
        heldBytes = 0
        for (data, promise) in writes { context.write(data, promise: promise) }
        context.flush()
    }
}

final class Flag: @unchecked Sendable {
    var raised = false
}

/// A socket whose peer never reads: writes are held, never completed.
final class StallingWriter: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    private var held: [EventLoopPromise<Void>?] = []
    /// What it holds: what a channel whose kernel takes nothing would.
    private(set) var heldBytes = 0

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        held.append(promise)
        heldBytes += unwrapOutboundIn(data).readableBytes
    }

    func flush(context: ChannelHandlerContext) {}

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        for promise in held { promise?.fail(ChannelError.ioOnClosedChannel) }
        held = []
        context.close(mode: mode, promise: promise)
    }
}
