import Logging
import NIOCore
import ToastCore

/// The daemon's state: the scheduler, the connections, the subscriptions
/// and the timer. It lives on one event loop and is touched only from it,
/// which is what lets the scheduler stay a plain value with no locks.
///
/// It carries out the scheduler's effects: each event is encoded once, and
/// the same bytes go to every subscriber that wants them, through a bounded
/// per-subscriber buffer.
final class ToastHub: @unchecked Sendable {
    struct Limits: Sendable {
        var maxConnections = 256
        /// Unwritten bytes a subscriber may hold before it is `lagged`.
        var subscriberBufferBytes = 1 << 20
        /// How long a lagged subscriber may go without draining before it is dropped.
        var lagTimeout = TimeAmount.seconds(10)
        /// How many recent events are kept for subscribers that resume.
        var resumeEvents = ProtocolInfo.defaultResumeEvents
    }

    let loop: any EventLoop
    let limits: Limits
    private let logger: Logger
    private var service: ToastService
    private let clock = DaemonClock()
    private var connections: [Int: Connection] = [:]
    private var nextConnectionID = 1
    private var timer: Scheduled<Void>?
    private(set) var isShuttingDown = false

    init(loop: any EventLoop, configuration: SchedulerConfiguration, limits: Limits, logger: Logger) {
        self.loop = loop
        self.limits = limits
        self.logger = logger
        self.service = ToastService(
            configuration: configuration, instance: Self.makeInstance(), resumeEvents: limits.resumeEvents
        )
    }

    /// A fresh instance name: 64 random bits in hex.
    static func makeInstance() -> String {
        let value = UInt64.random(in: 0...UInt64.max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Confined to the hub's event loop, like the hub itself.
    final class Connection: @unchecked Sendable {
        let id: Int
        let channel: any Channel
        var isSubscriber = false
        var pendingBytes = 0
        /// Written since the last flush; see `send`.
        var unflushedBytes = 0
        var lagged = false
        var dropped = 0

        init(id: Int, channel: any Channel) {
            self.id = id
            self.channel = channel
        }
    }

    var connectionCount: Int { connections.count }

    func isSubscriber(_ id: Int) -> Bool { connections[id]?.isSubscriber ?? false }
    var subscriberCount: Int { service.router.subscriberCount }

    // MARK: - Connections

    /// Registers a connection, or returns nil when the daemon serves its limit.
    func register(_ channel: any Channel, source: String) -> Int? {
        loop.preconditionInEventLoop()
        guard connections.count < limits.maxConnections, !isShuttingDown else { return nil }
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = Connection(id: id, channel: channel)
        service.connect(id, source: source)
        return id
    }

    func unregister(_ id: Int) {
        loop.preconditionInEventLoop()
        guard connections.removeValue(forKey: id) != nil else { return }
        if let source = service.boundSource(of: id) {
            logger.debug("source ended with its connection", metadata: ["source": "\(source)"])
        }
        // At shutdown a bound source does not end: its toasts stay for the next start.
        let effects = service.disconnect(id, now: clock.now())
        if !isShuttingDown { apply(effects) }
    }

    // MARK: - Requests

    /// Answers one request line: writes the reply to the connection, then
    /// publishes the events the request caused.
    func handle(line: ByteBuffer, from id: Int) {
        loop.preconditionInEventLoop()
        guard let connection = connections[id] else { return }
        let now = clock.now()
        let response = service.respond(toLine: line.readableBytesView, from: id, now: now)
        var reply = response.replyLine
        var afterReply: [[UInt8]] = []
        switch response.directive {
        case .hello?:
            break
        case .subscribe(let request)?:
            connection.isSubscriber = true
            afterReply = service.subscribe(id, request, ref: response.ref, now: now)
            reply = afterReply.removeFirst()
        case .status?:
            reply = WireEncoder.line(WireEncoder.ok(ref: response.ref, result: status()))
        case nil:
            break
        }
        switch response.schedulerReply {
        case .added(let record, _, _), .updated(let record):
            var isNew = false
            if case .added(_, false, _) = response.schedulerReply { isNew = true }
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
        if let reply { send(ByteBuffer(bytes: reply), to: connection, force: true) }
        for line in afterReply { send(ByteBuffer(bytes: line), to: connection, force: true) }
        apply(response.effects)
    }

    func rejectLongLine(from id: Int, maxLineBytes: Int) {
        guard let connection = connections[id] else { return }
        let error = ToastError(.lineTooLong, "the line exceeds \(maxLineBytes) bytes; it was discarded up to its newline")
        send(ByteBuffer(bytes: WireEncoder.line(WireEncoder.failure(ref: nil, error: error))), to: connection, force: true)
    }

    private func status() -> JSONValue {
        WireEncoder.status(
            service.scheduler, instance: service.instance, connections: connections.count,
            subscribers: subscriberCount, uptimeMilliseconds: clock.uptimeMilliseconds
        )
    }

    /// A one-line summary for logs and systemd's STATUS=.
    var statusLine: String {
        "\(service.scheduler.shownCount) shown, \(service.scheduler.queuedCount) queued, \(subscriberCount) subscribers"
    }

    // MARK: - Effects

    private func apply(_ effects: [SchedulerEffect]) {
        var touched: [Int: Connection] = [:]
        for publication in service.publish(effects) {
            let bytes = ByteBuffer(bytes: publication.line)
            for delivery in publication.deliveries {
                guard let connection = connections[delivery.connection] else { continue }
                send(bytes, to: connection, force: !delivery.asSubscriber)
                touched[connection.id] = connection
            }
        }
        for effect in effects {
            switch effect {
            case .publish:
                break
            case .armTimer(let deadline):
                timer?.cancel()
                let delay = max(0, deadline - clock.now())
                timer = loop.scheduleTask(in: .milliseconds(delay)) { [self] in
                    apply(service.tick(now: clock.now()))
                }
            case .disarmTimer:
                timer?.cancel()
                timer = nil
            }
        }
        for connection in touched.values {
            connection.unflushedBytes = 0
            connection.channel.flush()
        }
    }

    /// Writes to a connection through its bounded buffer. Subscriber events
    /// that do not fit are dropped and the subscriber is marked lagged; when
    /// its buffer drains it gets `lagged` and a fresh snapshot.
    private func send(_ bytes: ByteBuffer, to connection: Connection, force: Bool = false) {
        if !force {
            if connection.lagged {
                connection.dropped += 1
                return
            }
            if connection.pendingBytes + bytes.readableBytes > limits.subscriberBufferBytes {
                startLag(connection)
                return
            }
        }
        let size = bytes.readableBytes
        connection.pendingBytes += size
        let promise = loop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [self] _ in
            connection.pendingBytes -= size
            if connection.lagged && connection.pendingBytes == 0 && connections[connection.id] != nil {
                recoverFromLag(connection)
            }
        }
        connection.channel.write(bytes, promise: promise)
        // A burst (a clear of thousands, a flood) is flushed as it goes, so
        // the kernel takes what it can while a reader drains the other end;
        // otherwise the whole burst would count against every subscriber's
        // buffer at once and lag even a reader that keeps up.
        connection.unflushedBytes += size
        if connection.unflushedBytes >= Self.burstFlushBytes {
            connection.unflushedBytes = 0
            connection.channel.flush()
        }
    }

    static let burstFlushBytes = 64 << 10

    private func startLag(_ connection: Connection) {
        connection.lagged = true
        connection.dropped = 1
        logger.notice("subscriber fell behind; dropping its events", metadata: ["connection": "\(connection.id)"])
        loop.scheduleTask(in: limits.lagTimeout) { [self] in
            guard connection.lagged, connections[connection.id] != nil else { return }
            logger.warning("disconnecting a subscriber that stopped reading", metadata: ["connection": "\(connection.id)"])
            connection.channel.close(promise: nil)
        }
    }

    private func recoverFromLag(_ connection: Connection) {
        connection.lagged = false
        let notice: JSONValue = [
            "event": "lagged", "seq": .int(Int64(service.scheduler.lastSequence)), "time": .int(clock.now()),
            "dropped": .int(Int64(connection.dropped)),
        ]
        send(ByteBuffer(bytes: WireEncoder.line(notice)), to: connection, force: true)
        sendSnapshot(to: connection)
        connection.channel.flush()
    }

    private func sendSnapshot(to connection: Connection) {
        let filter = service.router.filter(of: connection.id) ?? EventFilter()
        send(ByteBuffer(bytes: service.snapshotLine(filter: filter, now: clock.now())), to: connection, force: true)
    }

    // MARK: - Shutdown

    /// Tells every subscriber `shutdown`, flushes, and closes every connection.
    func shutdown(reason: String) -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        isShuttingDown = true
        timer?.cancel()
        let notice = ByteBuffer(bytes: WireEncoder.line([
            "event": "shutdown", "seq": .int(Int64(service.scheduler.lastSequence)), "time": .int(clock.now()),
            "reason": .string(reason),
        ]))
        var closed: [EventLoopFuture<Void>] = []
        for connection in connections.values {
            if connection.isSubscriber {
                connection.channel.write(notice, promise: nil)
            }
            let channel = connection.channel
            closed.append(channel.writeAndFlush(ByteBuffer()).flatMap { channel.close() }.recover { _ in })
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
