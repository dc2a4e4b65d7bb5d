// SPDX-License-Identifier: Apache-2.0
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
    let logger: Logger
    /// Whether each added or updated toast is logged (at info). Read once:
    /// the logger is fixed, and asking its handler cost a step's reply copy
    /// and an existential call on every line.
    private let logsToasts: Bool
    /// The toasts this step added or changed, logged once its writes are
    /// let out (or handed to the commit thread): formatting and writing a
    /// log line was 15% of a plain add's instructions, and ran before its
    /// reply (docs/BENCHMARKS.md, "A rest costs by the page").
    private var unlogged: [SchedulerReply] = []
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
    var service: ToastService
    let clock = DaemonClock()
    private(set) var connections: [Int: Connection] = [:]
    private var nextConnectionID = 1
    var timer: Scheduled<Void>?
    var isShuttingDown = false
    let persistence: StatePersistence
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
    var outbox = StepOutbox()
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
    /// Makes a connection's channel read its socket or stop (its
    /// `autoRead`); tests count the calls.
    var setAutoRead: (any Channel, Bool) -> Void = { channel, on in
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: on)
    }
    /// The newest event whose step was committed and let out: what a
    /// subscriber catching up may be given.
    var releasedSequence: UInt64 = 0
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
    /// Told at the end of every step (`ServiceManagerDuties`: the status timer).
    var onStepEnded: (() -> Void)?
    /// Told when READY=1 carried a status line (after a reload).
    var onStatusSent: ((String) -> Void)?

    /// `restored`: the state of a durable toastd, loaded from its store.
    /// `encodesOffLoop`: whether a burst's writes may be encoded on the
    /// commit thread in memory too (`StatePersistence`); not on a test's
    /// EmbeddedEventLoop, which only its own thread may touch.
    init(
        loop: any EventLoop, configuration: SchedulerConfiguration, limits: Limits, logger: Logger,
        storage: DaemonStorage = .ephemeral, encodesOffLoop: Bool = true
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
                restored: loaded.scheduler, configuration: configuration, instance: loaded.instance,
                resumeEvents: limits.resumeEvents,
                history: ToastHistory(capacity: limits.historySize, entries: loaded.history)
            )
        }
        persistence = StatePersistence(storage: storage, loop: loop, logger: logger, encodesOffLoop: encodesOffLoop)
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
        service.declaredModes = resolved.config.modes
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
        onStatusSent?(statusLine)
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
        if logsToasts { noteForLog(response.schedulerReply) }
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

    private func noteForLog(_ reply: SchedulerReply?) {
        guard let reply else { return }
        switch reply {
        case .added, .updated: unlogged.append(reply)
        default: break
        }
    }

    private func log(_ reply: SchedulerReply) {
        switch reply {
        case .added(let record, _, _), .updated(let record):
            var isNew = false
            if case .added(_, false, _) = reply { isNew = true }
            // A new toast is one line at info; its updates (a progress bar's
            // hundred steps, a dedupe) are at debug, not a hundred lines.
            logger.log(
                level: isNew ? .info : .debug,
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
        if logsToasts { noteForLog(response.schedulerReply) }
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
        onStepEnded?()
        let writes = outbox.writes
        for (id, bytes) in outbox.owed { connections[id]?.hold.owed += bytes }
        outbox = StepOutbox(reservingFor: connections.count)
        let outcomes = localOutcomes
        localOutcomes = []
        let events = watchedEvents
        watchedEvents = []
        let lastSequence = service.scheduler.lastSequence
        persistence.endStep(service.scheduler, writes: writes.count, prepare: { StepOutbox.encoded(writes) }) { [self] writes in
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
        if !unlogged.isEmpty {
            for reply in unlogged { log(reply) }
            unlogged.removeAll(keepingCapacity: unlogged.count <= 64)
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
            persistence: persistence.mode, historyCount: service.history.count, inhibitors: service.inhibitors.count, inhibitorReasons: service.inhibitors.values.sorted(),
            knownModes: knownModes, rules: ruleCount, ruleNames: service.rules.rules.compactMap(\.name), configPath: configurationSource?.path, configError: configurationError,
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
            persistence.note(publication.event, waiting: publication.waiting)
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
    func watchDrain(of connection: Connection) {
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

}
