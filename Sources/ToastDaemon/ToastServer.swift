import Dispatch
import Logging
import NIOCore
import NIOPosix
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// The layout of Linux's `struct ucred` (pid, uid, gid), which Swift's
/// Glibc module does not export (it needs _GNU_SOURCE).
struct PeerCredentials: Sendable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
}

/// The toastd daemon: a swift-nio server on one event loop, bound to a Unix
/// socket, until SIGTERM or SIGINT.
public final class ToastServer: @unchecked Sendable {
    private let options: DaemonOptions
    private let logger: Logger
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let hub: ToastHub
    private var serverChannel: (any Channel)?
    private var signalSources: [any DispatchSourceSignal] = []
    /// Completed once shutdown has flushed every connection; made after binding.
    private var stopped: EventLoopPromise<Void>?

    public init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
        let limits = ToastHub.Limits(
            maxConnections: options.maxConnections, subscriberBufferBytes: options.subscriberBufferBytes,
            lagTimeout: TimeAmount(options.subscriberLagTimeout), resumeEvents: options.resumeEvents,
            historySize: options.historySize, maxLineBytes: options.maxLineBytes
        )
        hub = ToastHub(
            loop: group.next(), configuration: options.scheduler, limits: limits, logger: logger, storage: options.storage
        )
    }

    /// Binds the socket (or adopts the inherited one) and serves until a
    /// signal stops the daemon. READY=1 goes out only once the socket accepts.
    public func run() throws {
        defer { try? group.syncShutdownGracefully() }
        // The restored state's first step is committed before anyone connects.
        var bound: [String] = []
        if case .durable(_, let loaded) = options.storage { bound = loaded.boundSources }
        let hub = self.hub
        let options = self.options
        try hub.loop.submit {
            hub.serviceManager = options.serviceManager
            hub.configurationSource = options.configuration
            let source = options.configuration ?? ConfigurationSource(path: nil, isExplicit: false)
            if let resolved = source.resolve(options.initialConfiguration) {
                hub.install(resolved)
            } else if case .refused(let invalid) = options.initialConfiguration {
                // A typo must not mean no toasts: the defaults serve, and the error is loud.
                hub.install(source.resolve(.defaults)!, error: invalid.description)
            }
        }.wait()
        try hub.loop.flatSubmit { [bound] in hub.start(endingSources: bound) }.wait()
        let channel: any Channel
        if let inherited = options.inheritedSocket {
            channel = try bootstrap().withBoundSocket(inherited).wait()
            logger.info("toastd serving its inherited socket", metadata: ["fd": "\(inherited)"])
        } else {
            try SocketFile.prepare(options.socketPath)
            channel = try bind()
            logger.info("toastd listening", metadata: ["socket": "\(options.socketPath)"])
        }
        let stopped = hub.loop.makePromise(of: Void.self)
        self.stopped = stopped
        serverChannel = channel
        installSignalHandlers()
        options.onListening?(StatusBoard(hub: hub), InProcessClient(hub: hub))
        startServiceManagerDuties()
        try stopped.futureResult.wait()
    }

    /// How often `IdleTrim` looks at the step count, and after how many
    /// quiet looks in a row the code pages are let go of again (30 s).
    static let idleTrimTick = TimeAmount.seconds(10)
    static let idleTrimTicks = 3

    /// READY=1 now, and the code pages start-up touched let go of
    /// (`CodePages`), as they are again after 30 s without a step
    /// (`IdleTrim`); then STATUS= at most once a second, only when it
    /// changed; and WATCHDOG=1 at half the watchdog interval, from the event
    /// loop itself, so that a wedged loop stops the pings and is killed.
    private func startServiceManagerDuties() {
        let hooks = options.serviceManager
        let hub = self.hub
        let logger = self.logger
        hub.loop.execute {
            let last = NIOLoopBoundBox(hub.statusLine, eventLoop: hub.loop)
            hooks.ready(last.value)
            let releaseCodePages = { @Sendable (when: String) in
                let released = CodePages.release()
                logger.debug("let go of code pages", metadata: ["when": "\(when)", "KiB": "\(released / 1024)"])
            }
            releaseCodePages("ready")
            let trim = NIOLoopBoundBox(IdleTrim(quietTicks: Self.idleTrimTicks, steps: hub.steps), eventLoop: hub.loop)
            hub.loop.scheduleRepeatedTask(initialDelay: Self.idleTrimTick, delay: Self.idleTrimTick) { _ in
                if trim.value.tick(steps: hub.steps) { releaseCodePages("idle") }
            }
            hub.loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                let line = hub.statusLine
                if line != last.value {
                    last.value = line
                    hooks.status(line)
                }
            }
            if let watchdog = hooks.watchdog {
                let half = TimeAmount.nanoseconds(watchdog.nanoseconds / 2)
                hooks.watchdogPing()
                hub.loop.scheduleRepeatedTask(initialDelay: half, delay: half) { _ in
                    hooks.watchdogPing()
                }
            }
        }
    }

    private func bind() throws -> any Channel {
        let previous = umask(0o177)
        defer { umask(previous) }
        let channel = try bootstrap().bind(unixDomainSocketPath: options.socketPath).wait()
        chmod(options.socketPath, 0o600)
        return channel
    }

    /// Bytes written to a connection and not yet taken by the kernel: above
    /// `high` toastd stops reading the connection's requests, at `low` it
    /// reads again (`ConnectionHandler.channelWritabilityChanged`). High
    /// enough that a client may pipeline a few MiB of replies' worth of
    /// requests before it reads (a script's batch), low enough that a
    /// thousand connections cannot make toastd hold gigabytes.
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 2 << 20, high: 4 << 20)

    private func bootstrap() -> ServerBootstrap {
        let hub = self.hub
        let options = self.options
        let logger = self.logger
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: Self.writeBufferWaterMark)
            .childChannelInitializer { channel in
                Self.peerCredentials(of: channel).flatMap { credentials in
                    let uid = credentials?.uid ?? UInt32.max
                    guard uid == getuid() || (options.allowRoot && uid == 0) else {
                        logger.warning("refused a connection from another user", metadata: ["uid": "\(uid)"])
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                PeerRefusalHandler(ToastError(.forbidden, "toastd serves only its own user"))
                            )
                        }
                    }
                    let source = credentials.map { Self.processName(pid: $0.pid) } ?? "unknown"
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(LineFramer(maxLineBytes: options.maxLineBytes))
                        )
                        try channel.pipeline.syncOperations.addHandler(
                            ConnectionHandler(hub: hub, source: source)
                        )
                    }
                }
            }
    }

    private static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(17)  // SO_PEERCRED
        )
        return future.map { Optional($0) }.recover { _ in nil }
    }

    /// `name[pid]`, the default source of a peer's toasts. /proc is served
    /// from memory, so this read does not block the event loop on a disk.
    static func processName(pid: pid_t) -> String {
        let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "pid[\(pid)]" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return "pid[\(pid)]" }
        let name = String(decoding: buffer[..<count], as: UTF8.self).trimmingSuffix { $0 == "\n" }
        return "\(name)[\(pid)]"
    }

    // MARK: - Signals

    private func installSignalHandlers() {
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                if signalNumber == SIGHUP {
                    reload()
                } else {
                    stop(reason: signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")
                }
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// SIGHUP: the reload protocol of Type=notify-reload (RELOADING=1, the
    /// file read again, then READY=1). Every toast and connection stays.
    private func reload() {
        let hub = self.hub
        hub.loop.execute { hub.reload(answering: nil, ref: nil) }
    }

    /// Graceful shutdown: stop accepting, tell subscribers, flush, close,
    /// remove the socket file (unless systemd owns it).
    public func stop(reason: String) {
        let loop = hub.loop
        loop.execute { [self] in
            guard !hub.isShuttingDown else { return }
            options.serviceManager.stopping()
            logger.info("shutting down", metadata: ["reason": "\(reason)"])
            let server = serverChannel
            server?.close(promise: nil)
            if options.inheritedSocket == nil { unlink(options.socketPath) }
            hub.shutdown(reason: reason).whenComplete { [stopped] _ in
                stopped?.succeed()
            }
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var result = self
        while let last = result.last, predicate(last) { result.removeLast() }
        return result
    }
}
