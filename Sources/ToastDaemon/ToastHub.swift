import Dispatch
import Logging
import NIOCore
import ToastCore
import ToastStore

/// The daemon's state: the scheduler, the connections, the subscriptions
/// and the timer. It lives on one event loop and is touched only from it,
/// which is what lets the scheduler stay a plain value with no locks.
///
/// It carries out the scheduler's effects: each event is encoded once, and
/// the same bytes go to every subscriber that wants them, through a bounded
/// per-subscriber buffer.
///
/// Work comes in steps: a read burst of one connection, a timer tick, a
/// closed connection. What a step writes waits in `outbox` until the step
/// ends; `StatePersistence` then commits what the step changed and lets the
/// writes out, so that no reply acknowledges a change that is not durable.
final class ToastHub: @unchecked Sendable {
    /// What the hub takes from `DaemonOptions` (where their defaults live).
    struct Limits: Sendable {
        var maxConnections: Int
        /// Unwritten bytes a subscriber may hold before it falls behind.
        var subscriberBufferBytes: Int
        /// How long a subscriber may go without progress before it is dropped.
        var lagTimeout: TimeAmount
        /// How many recent events are kept for subscribers that resume.
        var resumeEvents: Int
        /// How many ended toasts are kept for `history`.
        var historySize: Int
        /// The longest request line (`--max-line-bytes`), for `line_too_long`.
        var maxLineBytes = DaemonOptions.defaults.maxLineBytes
    }

    let loop: any EventLoop
    let limits: Limits
    private let logger: Logger
    /// Whether each added or updated toast is logged (at info). Read once:
    /// the logger is fixed, and asking its handler cost a step's reply copy
    /// and an existential call on every line.
    private let logsToasts: Bool
    // `service`, `outbox` and `watchers` are read and changed on every line,
    // and each access of a class's stored property was a dynamic exclusivity
    // check (`swift_beginAccess`, a thread-local lookup; 1.4% of the event
    // loop in the ingest, docs/BENCHMARKS.md, section 2). They are
    // @exclusivity(unchecked): the hub runs on its one event loop, and every
    // access to them is a call into a value type (`ToastService`,
    // `StepOutbox`) or an array that calls nothing back, so two accesses
    // cannot overlap. Any property whose access can run a callback into the
    // hub (`connections`: channels) stays checked.
    @exclusivity(unchecked)
    private var service: ToastService
    private let clock = DaemonClock()
    private(set) var connections: [Int: Connection] = [:]
    private var nextConnectionID = 1
    private var timer: Scheduled<Void>?
    private(set) var isShuttingDown = false
    private let persistence: StatePersistence
    /// Runs rules' `exec` commands.
    let runner: RuleCommandRunner
    /// Where the configuration comes from, for reloads.
    var configurationSource: ConfigurationSource?
    /// What the last load of the file said, for `status` and STATUS=.
    private(set) var configurationError: String?
    private var ruleCount = 0
    /// The reloads asked for, coalesced.
    private var reloads = ReloadQueue()
    private var knownModes: [String] = []
    /// RELOADING=1 and READY=1 around a reload.
    var serviceManager = ServiceManagerHooks()
    /// The writes of the current step.
    @exclusivity(unchecked)
    private(set) var outbox = StepOutbox()
    /// Hands the heap's free pages back once a burst is over (tests set a
    /// smaller threshold, and count the trims instead of trimming).
    var burstTrim = BurstTrim(thresholdBytes: ToastHub.burstTrimBytes)
    var releaseFreePages: () -> Void = BurstTrim.releaseFreePages
    static let burstTrimBytes = 4 << 20
    static let burstTrimQuiet = TimeAmount.milliseconds(100)
    /// How long a stopping daemon waits for each connection to take what it
    /// was written (the `shutdown` notice last) before it closes it anyway.
    static let shutdownGrace = TimeAmount.seconds(1)
    /// The bytes a connection's channel holds that the kernel has not taken
    /// (tests stand in for a kernel that takes nothing).
    var bufferedBytes: (any Channel) -> Int = { channel in
        (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
    }
    /// The newest event whose step was committed and let out: what a
    /// subscriber catching up may be given.
    private var releasedSequence: UInt64 = 0
    /// In-process clients' outcomes of the current step, told once it is
    /// committed, as a reply would be written.
    private var localOutcomes: [@Sendable () -> Void] = []
    /// In-process watchers (`InProcessClient.watch`), and the events of the
    /// current step they will be told of once it is committed.
    @exclusivity(unchecked)
    private var watchers: [@Sendable (ToastEvent) -> Void] = []
    private var watchedEvents: [ToastEvent] = []
    /// Steps ended so far: a request, a timer, a connection's end (`IdleTrim`).
    private(set) var steps = 0

    /// `restored`: the state of a durable toastd, loaded from its store.
    init(
        loop: any EventLoop, configuration: SchedulerConfiguration, limits: Limits, logger: Logger,
        storage: DaemonStorage = .ephemeral
    ) {
        self.loop = loop
        self.limits = limits
        self.logger = logger
        logsToasts = logger.logLevel <= .info
        switch storage {
        case .ephemeral, .degraded:
            service = ToastService(
                configuration: configuration, instance: ProtocolInfo.newInstance(), resumeEvents: limits.resumeEvents,
                history: ToastHistory(capacity: limits.historySize)
            )
        case .durable(_, let loaded):
            service = ToastService(
                restoring: loaded.state, configuration: configuration, instance: loaded.instance,
                resumeEvents: limits.resumeEvents,
                history: ToastHistory(capacity: limits.historySize, entries: loaded.history)
            )
        }
        persistence = StatePersistence(storage: storage, loop: loop, logger: logger)
        releasedSequence = service.scheduler.lastSequence
        runner = RuleCommandRunner(logger: logger)
        persistence.fullState = { [unowned self] in
            let scheduler = service.scheduler
            return ToastStore.FullState(
                records: scheduler.state.records, history: Array(service.history.all), boundSources: service.boundSources,
                nextID: scheduler.nextToastID, lastSequence: scheduler.lastSequence, pausedLevel: scheduler.pausedLevel,
                modes: scheduler.modes
            )
        }
        persistence.onRecovered = { [unowned self] in endStep() }
    }

    // MARK: - Configuration

    /// Puts a configuration in force: at start (before `start`) or on reload.
    /// `error` is the file's refusal when the defaults stand in for it.
    func install(_ resolved: ConfigurationSource.Resolved, error: String? = nil) {
        loop.preconditionInEventLoop()
        configurationError = error
        ruleCount = resolved.config.rules.rules.count
        knownModes = resolved.config.modes ?? []
        runner.limits = RuleCommandRunner.Limits(
            timeout: resolved.config.execTimeout, maxRunning: resolved.config.execMaxRunning
        )
        apply(service.reconfigure(resolved.scheduler, rules: resolved.config.rules, now: clock.now()))
    }

    /// Reads the configuration file again, off the event loop, and puts it in
    /// force if it is valid; a refused file changes nothing but `status`.
    /// Answers `connection` (the `reload` op) with the outcome. Requests
    /// made while a reading runs share the next one (`ReloadQueue`).
    func reload(answering connection: Int?, ref: JSONValue?) {
        loop.preconditionInEventLoop()
        if reloads.request(ReloadQueue.Requester(connection: connection, ref: ref)) { readConfiguration() }
    }

    private func readConfiguration() {
        serviceManager.reloading()
        guard let source = configurationSource else {
            finishReload(.defaults, source: ConfigurationSource(path: nil, isExplicit: false))
            return
        }
        DispatchQueue.global().async { [self] in
            let outcome = source.load()
            loop.execute { [self] in finishReload(outcome, source: source) }
        }
    }

    private func finishReload(_ outcome: ConfigurationSource.Outcome, source: ConfigurationSource) {
        let reply: Result<JSONValue, ToastError>
        if let resolved = source.resolve(outcome) {
            install(resolved)
            var result: JSONObject = [
                "reloaded": true, "rules": .int(Int64(ruleCount)),
                "path": source.path.map(JSONValue.string) ?? .null,
            ]
            if case .defaults = outcome { result["path"] = .null }
            if let size = resolved.config.historySize, size != service.history.capacity {
                result["notes"] = ["limits.history_size takes effect at the next start"]
            }
            logger.notice("configuration reloaded", metadata: ["rules": "\(ruleCount)", "path": "\(source.path ?? "-")"])
            reply = .success(.object(result))
        } else {
            guard case .refused(let invalid) = outcome else { return }
            configurationError = invalid.description
            logger.error("configuration refused; the one in force stays", metadata: ["problems": "\(invalid.description)"])
            reply = .failure(ToastError(.invalidConfig, invalid.description))
        }
        let (answered, again) = reloads.finished()
        for requester in answered {
            guard let id = requester.connection, let connection = connections[id] else { continue }
            let line: JSONValue
            switch reply {
            case .success(let result): line = WireEncoder.ok(ref: requester.ref, result: result)
            case .failure(let error): line = WireEncoder.failure(ref: requester.ref, error: error)
            }
            send(WireEncoder.line(line), to: connection)
        }
        endStep()
        serviceManager.ready(statusLine)
        if again { readConfiguration() }
    }

    /// The first step of a restored daemon, before it serves: sources bound
    /// to connections of the last run have ended with them, and toasts whose
    /// time ran out while it was down expire. Committed like any step.
    func start(endingSources bound: [String]) -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        for source in bound {
            logger.info("source ended with its connection in the last run", metadata: ["source": "\(source)"])
            persistence.bind(source, false)
            apply(service.respond(to: RequestEnvelope(request: .command(.endSource(source))), defaultSource: nil, now: clock.now()).effects)
        }
        apply(service.tick(now: clock.now()))
        endStep()
        return persistence.idle
    }


    /// Confined to the hub's event loop, like the hub itself.
    final class Connection: @unchecked Sendable {
        let id: Int
        let channel: any Channel
        /// Its `ConnectionHandler`'s context. A step's writes start there,
        /// next to the socket (no outbound handler sits between), where
        /// `channel.write` went through the `Channel` existential, a generic
        /// wrapper and the pipeline's tail: about 0.7k instructions a
        /// subscriber and event at 128 subscribers (docs/BENCHMARKS.md,
        /// section 3). Every write to the connection goes through it (or
        /// through `sendEvent`), so that it knows when swift-nio may hold
        /// bytes; only empty writes before a close go through `channel`.
        private let context: ChannelHandlerContext
        // The three below are read or changed for every event the
        // connection is sent, and are @exclusivity(unchecked) for the
        // hub's reason (a dynamic check each access): they are confined to
        // the loop, `output`'s methods call back only to ask the channel
        // what it holds, and the other two are plain values.
        /// What to do with its output (`SubscriberStateMachine`).
        @exclusivity(unchecked)
        var output: SubscriberStateMachine
        /// A subscriber's socket, once found: its events are sent there
        /// while swift-nio holds nothing for it (`SubscriberSocket`).
        @exclusivity(unchecked)
        private(set) var socket: SubscriberSocket?
        /// Whether swift-nio may hold bytes of this connection the kernel
        /// has not taken: set by every write through the channel, cleared
        /// once the channel says it holds none.
        @exclusivity(unchecked)
        private var channelMayHoldBytes = true
        /// Its own events (`EventRouter.Delivery.isOwn`) not written while
        /// it was behind as a subscriber: given with the catch-up, or after
        /// `lagged` when the backlog no longer holds them. At most a few per
        /// toast it added, and only while it is behind.
        var missedOwn: [(seq: UInt64, line: ByteBuffer)] = []
        /// Its requests held back while its unread replies are at their bound.
        var hold = RequestHold()
        /// Whether it is a spare connection, and whether it has said anything.
        var admission = Admission(kind: .regular)
        /// Closes it if it sends no line in time.
        var firstLineTimer: Scheduled<Void>?

        init(id: Int, context: ChannelHandlerContext, limits: SubscriberStateMachine.Limits) {
            self.id = id
            self.channel = context.channel
            self.context = context
            self.output = SubscriberStateMachine(limits: limits)
        }

        /// Writes `bytes` into the channel, and flushes it with them if `flush`.
        func write(_ bytes: ByteBuffer, flush: Bool, promise: EventLoopPromise<Void>? = nil) {
            channelMayHoldBytes = true
            if flush {
                context.writeAndFlush(NIOAny(bytes), promise: promise)
            } else {
                context.write(NIOAny(bytes), promise: promise)
            }
        }

        func flush() { context.flush() }

        /// Reads the socket (and at once, if `on`), or stops reading it.
        func setReading(_ on: Bool) {
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: on)
            if on { context.read() }
        }

        /// Writes a subscriber's event and flushes it: straight to the
        /// socket when swift-nio holds nothing for it (`buffered` asks the
        /// channel, and only after a write through it), the rest of it, or
        /// all of it otherwise, through the channel.
        func sendEvent(_ bytes: ByteBuffer, buffered: () -> Int) {
            guard let socket, channel.isActive, !channelMayHoldBytes || buffered() == 0 else {
                return write(bytes, flush: true)
            }
            channelMayHoldBytes = false
            guard let taken = socket.send(bytes) else { return write(bytes, flush: true) }
            guard taken < bytes.readableBytes else { return }
            write(bytes.getSlice(at: bytes.readerIndex + taken, length: bytes.readableBytes - taken)!, flush: true)
        }

        /// Looks for the socket of a connection that subscribed.
        func findSocket() {
            guard socket == nil else { return }
            SubscriberSocket.of(channel).whenSuccess { [self] in socket = $0 }
        }
    }

    var connectionCount: Int { connections.count }

    /// Whether a connection whose client stopped sending still wants output.
    func keepsOutputOpen(_ id: Int) -> Bool { connections[id]?.output.keepsOutputOpen ?? false }
    var subscriberCount: Int { service.router.subscriberCount }

    // MARK: - Connections

    /// Registers a connection, or returns nil when the daemon serves its
    /// limit and its spare connections (`Admission`).
    func register(_ context: ChannelHandlerContext, source: String) -> Int? {
        loop.preconditionInEventLoop()
        guard !isShuttingDown, let kind = Admission.admit(open: connections.count, limit: limits.maxConnections) else { return nil }
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = Connection(id: id, context: context, limits: SubscriberStateMachine.Limits(bufferBytes: limits.subscriberBufferBytes))
        connection.admission = Admission(kind: kind)
        connections[id] = connection
        service.connect(id, source: source)
        armFirstLineTimer(connection)
        return id
    }

    func unregister(_ id: Int) {
        loop.preconditionInEventLoop()
        guard let removed = connections.removeValue(forKey: id) else { return }
        removed.firstLineTimer?.cancel()
        let bound = service.boundSource(of: id)
        // At shutdown a bound source is not ended here: it stays recorded as
        // bound, and the next start ends it (`start(endingSources:)`).
        guard !isShuttingDown else { return }
        if let bound {
            logger.debug("source ended with its connection", metadata: ["source": "\(bound)"])
            persistence.bind(bound, false)
        }
        let forgotten = service.router.toastCount(addedBy: id)
        apply(service.disconnect(id, now: clock.now()))
        endStep()
        // The router forgot this connection's toasts: a client that queued
        // 100,000 and left freed about 6 MiB, which only a trim hands back.
        if burstTrim.freed(forgotten * Self.bytesPerForgottenToast, steps: steps) { armBurstTrim() }
    }

    /// What the router keeps for each toast a connection added, about: a
    /// 32-byte slot of its adders and an 8-byte slot of the connection's
    /// set, in tables three eighths to three quarters full.
    static let bytesPerForgottenToast = 80

    // MARK: - Requests

    /// Answers one request line: writes the reply to the connection, then
    /// publishes the events the request caused.
    func handle(line: ByteBuffer, from id: Int) {
        loop.preconditionInEventLoop()
        guard let connection = connections[id] else { return }
        let now = clock.now()
        var response = service.respond(toLine: line.readableBytesView, from: id, now: now)
        if logsToasts { log(response.schedulerReply) }
        if let change = response.historyChange { persistence.note(change) }
        // The scheduler's answers (which come with no directive) are encoded
        // once the step is committed. The response waits for that without
        // its effects: kept with it, each add's array of them outlived the
        // add, and 100,000 queued toasts took 8 MiB more (docs/BENCHMARKS.md,
        // section 4).
        if response.isSchedulerSuccess {
            let effects = response.effects
            response.effects = []
            outbox.append(.reply(response), to: id)
            apply(effects)
            return
        }
        var reply = response.replyLine
        var afterReply: [[UInt8]] = []
        switch response.directive {
        case .hello(let hello)?:
            if hello.bindSource, let source = hello.source { persistence.bind(source, true) }
        case .subscribe(let request)?:
            switch connection.output.subscribed() {
            case .sendSubscription:
                connection.findSocket()
                afterReply = service.subscribe(id, request, ref: response.ref, now: now)
                reply = afterReply.removeFirst()
            }
        case .status?:
            reply = WireEncoder.line(WireEncoder.ok(ref: response.ref, result: status()))
        case .reload?:
            reload(answering: id, ref: response.ref)
        case nil:
            break
        }
        if let reply { send(reply, to: connection) }
        for line in afterReply { send(line, to: connection) }
        apply(response.effects)
    }

    private func log(_ reply: SchedulerReply?) {
        switch reply {
        case .added(let record, _, _), .updated(let record):
            var isNew = false
            if case .added(_, false, _) = reply { isNew = true }
            logger.info(
                isNew ? "toast added" : "toast updated",
                metadata: [
                    "toast_id": "\(record.id)",
                    "role": "\(record.toast.role.rawValue)",
                    "source": "\(record.toast.source ?? "")",
                    "scene": "\(record.toast.scene)",
                ]
            )
        default:
            break
        }
    }

    // MARK: - In-process clients

    /// Carries out a command for a client in toastd's own process (the
    /// freedesktop bridge) as one step, exactly as a connection's line would
    /// be (rules, role defaults, events), and tells `completion` the outcome
    /// once the step is committed: durable before acknowledged, like a reply.
    func perform(
        _ envelope: RequestEnvelope, source: String, completion: @escaping @Sendable (Result<SchedulerReply, ToastError>) -> Void
    ) {
        loop.preconditionInEventLoop()
        guard !isShuttingDown else {
            completion(.failure(ToastError(.shuttingDown, "toastd is stopping")))
            return
        }
        let response = service.respond(to: envelope, defaultSource: source, now: clock.now())
        if logsToasts { log(response.schedulerReply) }
        if let change = response.historyChange { persistence.note(change) }
        let outcome = response.schedulerResult ?? .failure(ToastError(.invalidRequest, "only commands are carried out in process"))
        localOutcomes.append { completion(outcome) }
        apply(response.effects)
        endStep()
    }

    /// Tells `deliver`, on the loop, of every event from now on, each once
    /// its step is committed (what a subscriber without a filter hears).
    func watch(_ deliver: @escaping @Sendable (ToastEvent) -> Void) {
        loop.preconditionInEventLoop()
        watchers.append(deliver)
    }

    /// A client that stopped sending and does not subscribe: close it once
    /// everything it was answered (committed first) is written.
    func closeOnceAnswered(_ id: Int) {
        loop.preconditionInEventLoop()
        if let connection = connections[id], connection.hold.isHolding {
            connection.hold.closeWhenAnswered = true
            return
        }
        endStep()
        persistence.idle.whenComplete { [self] _ in
            guard let channel = connections[id]?.channel else { return }
            channel.writeAndFlush(ByteBuffer()).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// The end of a step (a connection's read burst): its changes are
    /// committed, then its writes go out.
    func endStep() {
        loop.preconditionInEventLoop()
        steps &+= 1
        let writes = outbox.writes
        for (id, bytes) in outbox.owed { connections[id]?.hold.owed += bytes }
        outbox = StepOutbox(reservingFor: connections.count)
        let outcomes = localOutcomes
        localOutcomes = []
        let events = watchedEvents
        watchedEvents = []
        let lastSequence = service.scheduler.lastSequence
        persistence.endStep(service.scheduler, prepare: { StepOutbox.encoded(writes) }) { [self] writes in
            releasedSequence = max(releasedSequence, lastSequence)
            var bytes = 0
            var heldBack = false
            for write in writes {
                guard let connection = connections[write.connection] else { continue }
                self.write(write.bytes, to: connection, seq: write.seq, isLast: write.isLast, isOwn: write.isOwn)
                bytes += write.bytes.readableBytes
                connection.hold.owed -= write.owed
                heldBack = heldBack || connection.hold.isHolding
            }
            if heldBack { loop.execute { [self] in answerHeldRequests() } }
            if burstTrim.wrote(bytes, steps: steps) { armBurstTrim() }
            for outcome in outcomes { outcome() }
            for event in events {
                for watcher in watchers { watcher(event) }
            }
        }
    }

    func rejectLongLine(from id: Int, maxLineBytes: Int) {
        guard let connection = connections[id] else { return }
        let error = ToastError(.lineTooLong, "the line exceeds \(maxLineBytes) bytes; it was discarded up to its newline")
        send(WireEncoder.failureLine(ref: nil, error: error), to: connection)
    }

    private func status() -> JSONValue {
        daemonStatus.result(
            scheduler: WireEncoder.status(
                service.scheduler, instance: service.instance, connections: connections.count,
                subscribers: subscriberCount, uptimeMilliseconds: clock.uptimeMilliseconds
            )
        )
    }

    /// What companions (the freedesktop bridge) report in `status` and STATUS=.
    var board: [String: String] = [:]

    var daemonStatus: DaemonStatus {
        DaemonStatus(
            persistence: persistence.mode, historyCount: service.history.count, inhibitors: service.inhibitors.count,
            knownModes: knownModes, rules: ruleCount, configPath: configurationSource?.path, configError: configurationError,
            board: board
        )
    }

    /// A one-line summary for logs and systemd's STATUS=.
    var statusLine: String {
        let scheduler = service.scheduler
        return daemonStatus.line(
            shown: scheduler.shownCount, queued: scheduler.queuedCount, subscribers: subscriberCount,
            pauseLevel: scheduler.isPaused ? scheduler.pauseLevel : nil
        )
    }

    // MARK: - Effects

    /// Carries out effects: publishes events (into the step's outbox) and arms the timer.
    private func apply(_ effects: [SchedulerEffect]) {
        for publication in service.publish(effects) {
            persistence.note(publication.event)
            if !watchers.isEmpty { watchedEvents.append(publication.event) }
            guard !publication.deliveries.isEmpty else { continue }
            var shared: ByteBuffer?
            for delivery in publication.deliveries {
                guard delivery.asSubscriber else {
                    // An adder's own event: encoded with the step's replies.
                    outbox.append(publication.encodedLine.map(StepOutbox.Line.bytes) ?? .event(publication.event), to: delivery.connection)
                    continue
                }
                if shared == nil { shared = ByteBuffer(bytes: publication.line) }
                outbox.append(shared!, to: delivery.connection, seq: publication.event.seq, isOwn: delivery.isOwn)
            }
        }
        for run in service.takeRuns() { runner.run(run) }
        for effect in effects {
            switch effect {
            case .publish:
                break
            case .armTimer(let deadline):
                timer?.cancel()
                let delay = max(0, deadline - clock.now())
                timer = loop.scheduleTask(in: .milliseconds(delay)) { [self] in
                    apply(service.tick(now: clock.now()))
                    endStep()
                }
            case .disarmTimer:
                timer?.cancel()
                timer = nil
            }
        }
    }

    /// Queues a line for the end of the step, one that bypasses the lag
    /// bound (a reply, a notice, an adder's own event); a subscriber's
    /// events go in `apply`, with their sequence numbers.
    func send(_ line: [UInt8], to connection: Connection) {
        outbox.append(line: line, to: connection.id)
    }

    /// Writes to a connection as its output policy says: a subscriber's
    /// event that does not fit its buffer is not written, and the subscriber
    /// catches up from the backlog later (`SubscriberStateMachine`).
    /// `isLast`: the connection's last write of the step, flushed with it.
    /// `isOwn`: a subscriber's event that is also its own (`EventRouter.Delivery`),
    /// kept apart when it is not written (`Connection.missedOwn`).
    private func write(_ bytes: ByteBuffer, to connection: Connection, seq: UInt64?, isLast: Bool, isOwn: Bool = false) {
        let action = connection.output.send(bytes: bytes.readableBytes, seq: seq, buffered: { bufferedBytes(connection.channel) })
        if isLast { connection.output.flushed() }
        switch action {
        case .write(let burst):
            if seq != nil && (burst || isLast) {
                connection.sendEvent(bytes) { bufferedBytes(connection.channel) }
            } else {
                connection.write(bytes, flush: burst || isLast)
            }
        case .skip:
            if isOwn, let seq { connection.missedOwn.append((seq, bytes)) }
            if isLast { connection.flush() }
        case .fallBehind:
            if isOwn, let seq { connection.missedOwn.append((seq, bytes)) }
            logger.notice("subscriber fell behind; it catches up from the backlog", metadata: ["connection": "\(connection.id)"])
            armLagTimer(connection)
            watchDrain(of: connection)
            if isLast { connection.flush() }
        }
    }

    /// Tells the policy when the kernel has taken everything written to the
    /// connection so far: an empty write's promise completes once the
    /// writes before it have (the caller flushes).
    private func watchDrain(of connection: Connection) {
        let drained = loop.makePromise(of: Void.self)
        drained.futureResult.whenSuccess { [self] in
            guard connections[connection.id] != nil else { return }
            switch connection.output.drained(buffered: bufferedBytes(connection.channel)) {
            case .none:
                break
            case .queueCatchUp:
                // Not from inside the flush that completed the write.
                loop.execute { [self] in catchUp(connection) }
            }
        }
        connection.write(ByteBuffer(), flush: false, promise: drained)
    }

    private func armBurstTrim() {
        loop.scheduleTask(in: Self.burstTrimQuiet) { [self] in
            switch burstTrim.timerFired(steps: steps) {
            case .rearm: armBurstTrim()
            case .trim: releaseFreePages()
            }
        }
    }

    private func armLagTimer(_ connection: Connection) {
        loop.scheduleTask(in: limits.lagTimeout) { [self] in
            guard connections[connection.id] != nil else { return }
            switch connection.output.lagTimerFired(buffered: { bufferedBytes(connection.channel) }) {
            case .none:
                break
            case .rearm:
                armLagTimer(connection)
            case .disconnect:
                logger.warning("disconnecting a subscriber that stopped reading", metadata: ["connection": "\(connection.id)"])
                connection.channel.close(promise: nil)
            }
        }
    }

    /// A catch-up turn: the backlog's events the subscriber missed, as many
    /// as its policy takes; or `lagged` and a snapshot when they are lost.
    private func catchUp(_ connection: Connection) {
        guard connections[connection.id] != nil, case .readBacklog(let after) = connection.output.catchUpTurn() else { return }
        let filter = service.router.filter(of: connection.id) ?? EventFilter()
        let missed = service.backlog.events(after: after, lastSequence: service.scheduler.lastSequence, matching: filter)
        let offered = missed?.lazy.map { (seq: $0.seq, bytes: $0.line.count) }
        switch connection.output.replay(offered, released: releasedSequence, buffered: { bufferedBytes(connection.channel) }) {
        case .write(let count, let live):
            for entry in missed?.prefix(count) ?? [] { connection.write(ByteBuffer(bytes: entry.line), flush: false) }
            // Its own events among them were given with the rest.
            if let last = missed?.prefix(count).last?.seq { connection.missedOwn.removeAll { $0.seq <= last } }
            if !live { watchDrain(of: connection) }
            connection.flush()
        case .resync(let dropped):
            resync(connection, dropped: dropped)
        }
    }

    /// `lagged`, then a snapshot: a step of its own, so that it goes out in
    /// order with the steps before it.
    private func resync(_ connection: Connection, dropped: Int) {
        let notice = WireEncoder.laggedNotice(seq: service.scheduler.lastSequence, time: clock.now(), dropped: dropped)
        let pending = outbox
        outbox = StepOutbox()
        send(WireEncoder.line(notice), to: connection)
        // The connection's own events of the gap (how its toasts ended),
        // which 6.3 never drops: after `lagged`, before the snapshot whose
        // seq follows theirs.
        for own in connection.missedOwn { send(Array(own.line.readableBytesView), to: connection) }
        connection.missedOwn = []
        sendSnapshot(to: connection)
        endStep()
        outbox = pending
    }

    private func sendSnapshot(to connection: Connection) {
        let filter = service.router.filter(of: connection.id) ?? EventFilter()
        send(service.snapshotLine(filter: filter, now: clock.now()), to: connection)
    }

    // MARK: - Shutdown

    /// Tells every subscriber `shutdown`, flushes, and closes every
    /// connection; completes once the journaled steps are in the database.
    func shutdown(reason: String) -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        isShuttingDown = true
        timer?.cancel()
        runner.stop()
        // What was acknowledged is committed; let the last steps' writes out first.
        endStep()
        return persistence.idle.flatMap { [self] in closeAll(reason: reason) }.recover { _ in }.flatMap { [persistence] in
            persistence.shutdown()
        }
    }

    private func closeAll(reason: String) -> EventLoopFuture<Void> {
        let notice = ByteBuffer(bytes: WireEncoder.line(
            WireEncoder.shutdownNotice(seq: service.scheduler.lastSequence, time: clock.now(), reason: reason)
        ))
        var closed: [EventLoopFuture<Void>] = []
        for connection in connections.values {
            switch connection.output.shutdown() {
            case .notifyThenClose: connection.write(notice, flush: false)
            case .close: break
            }
            let channel = connection.channel
            // A reader that takes nothing would hold the empty write, and the
            // exit, forever: it is closed with its bytes unsent after the grace.
            let cutOff = loop.scheduleTask(in: Self.shutdownGrace) { channel.close(promise: nil) }
            closed.append(
                channel.writeAndFlush(ByteBuffer()).flatMap {
                    cutOff.cancel()
                    return channel.close()
                }.recover { _ in }
            )
        }
        return EventLoopFuture.andAllComplete(closed, on: loop)
    }
}

/// The daemon's clock: milliseconds that read as Unix time at start-up but
/// advance monotonically, so timers survive wall-clock changes.
struct DaemonClock: Sendable {
    let anchor: Int64
    let start: NIODeadline

    init() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        anchor = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        start = .now()
    }

    func now() -> ToastInstant { anchor + uptimeMilliseconds }

    var uptimeMilliseconds: Int64 { (NIODeadline.now() - start).nanoseconds / 1_000_000 }
}

#if canImport(Glibc)
import Glibc
#endif
