// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOPosix
import ToastCore
import ToastSystem

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
    fileprivate let options: DaemonOptions
    fileprivate let logger: Logger
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    fileprivate let hub: ToastHub
    private let lifecycle: DaemonLifecycle

    /// The restored state in `options.storage` moves into the hub; what the
    /// server keeps of the options no longer holds it.
    public init(options: DaemonOptions, logger: Logger) {
        var options = options
        self.logger = logger
        let limits = ToastHub.Limits(
            maxConnections: options.maxConnections, subscriberBufferBytes: options.subscriberBufferBytes,
            lagTimeout: TimeAmount(options.subscriberLagTimeout), resumeEvents: options.resumeEvents,
            historySize: options.historySize, maxLineBytes: options.maxLineBytes
        )
        hub = ToastHub(
            loop: group.next(), configuration: options.scheduler, limits: limits, logger: logger, storage: options.storage
        )
        options.storage = options.storage.handedOver
        self.options = options
        lifecycle = DaemonLifecycle(loop: hub.loop)
    }

    /// Starts every service in order (the hub with the restored state, the
    /// socket, the companions such as the freedesktop bridge, then READY=1)
    /// and serves until a signal stops them, in reverse order
    /// (`DaemonLifecycle`).
    public func run() throws {
        defer { try? group.syncShutdownGracefully() }
        let board = StatusBoard(hub: hub)
        let client = InProcessClient(hub: hub)
        var services: [any DaemonService] = [HubService(hub: hub, options: options), ListenerService(server: self)]
        services += options.companions.map { $0(board, client) }
        services.append(
            ServiceManagerDuties(hub: hub, hooks: options.serviceManager, logger: logger, listeningSocket: options.inheritedSocket)
        )
        let lifecycle = self.lifecycle
        if options.handlesSignals { installSignalHandlers() }
        do {
            try hub.loop.flatSubmit { [services] in lifecycle.start(services) }.wait()
        } catch {
            // Those that started before the one that failed are stopping
            // (the hub puts its last steps on disk): the loop must outlive
            // them, or their completions find it shut down.
            try? lifecycle.finished.wait()
            throw error
        }
        try lifecycle.finished.wait()
    }

    /// The listening socket, as a service: bound (or adopted) at start, and
    /// at stop closed and its file removed (unless systemd owns it).
    final class ListenerService: DaemonService, @unchecked Sendable {
        let name = "socket"
        private let server: ToastServer
        private var channel: (any Channel)?

        init(server: ToastServer) {
            self.server = server
        }

        func start() -> EventLoopFuture<Void> {
            let options = server.options
            let loop = server.hub.loop
            let bound: EventLoopFuture<any Channel>
            if let inherited = options.inheritedSocket {
                bound = server.bootstrap().withBoundSocket(inherited)
            } else {
                do {
                    try SocketFile.prepare(options.socketPath)
                } catch {
                    return loop.makeFailedFuture(error)
                }
                bound = server.bind()
            }
            return bound.map { [self] channel in
                self.channel = channel
                if let inherited = options.inheritedSocket {
                    server.logger.info("toastd serving its inherited socket", metadata: ["fd": "\(inherited)"])
                } else {
                    server.logger.info("toastd listening", metadata: ["socket": "\(options.socketPath)"])
                }
            }
        }

        func stop(reason: String) -> EventLoopFuture<Void> {
            guard let channel else { return server.hub.loop.makeSucceededVoidFuture() }
            self.channel = nil
            if server.options.inheritedSocket == nil { unlink(server.options.socketPath) }
            return channel.close().recover { _ in }
        }
    }

    /// Binds the socket file, mode 0600 from the start (umask), on the loop.
    fileprivate func bind() -> EventLoopFuture<any Channel> {
        let previous = umask(0o177)
        let bound = bootstrap().bind(unixDomainSocketPath: options.socketPath)
        umask(previous)
        let path = options.socketPath
        return bound.map { channel in
            chmod(path, 0o600)
            return channel
        }
    }

    /// Bytes written to a connection and not yet taken by the kernel: above
    /// `high` toastd stops reading the connection's requests, at `low` it
    /// reads again (`ConnectionHandler.channelWritabilityChanged`). High
    /// enough that a client may pipeline a few MiB of replies' worth of
    /// requests before it reads (a script's batch), low enough that a
    /// thousand connections cannot make toastd hold gigabytes.
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 2 << 20, high: 4 << 20)

    fileprivate func bootstrap() -> ServerBootstrap {
        let hub = self.hub
        let options = self.options
        let logger = self.logger
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                // Everything here runs at once, on the loop. The options are
                // set in `setUp`, not as the bootstrap's child options, which
                // it applies through a chain of futures (17,600 instructions
                // a connection), and the peer's credentials are waited for
                // with one promise, not four chained futures: each future
                // costs a generic metadata lookup when it is made and when it
                // is freed (docs/BENCHMARKS.md, "Page by page").
                let setUp: @Sendable (PeerCredentials?) throws -> Void = { credentials in
                    try Self.setUp(channel, peer: credentials, hub: hub, options: options, logger: logger)
                }
                guard let provider = channel as? any SocketOptionProvider else {
                    return channel.eventLoop.makeCompletedFuture { try setUp(nil) }
                }
                let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
                    level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(17)  // SO_PEERCRED
                )
                let ready = channel.eventLoop.makePromise(of: Void.self)
                credentials.whenComplete { result in
                    ready.completeWith(Result { try setUp(try? result.get()) })
                }
                return ready.futureResult
            }
    }

    /// A new connection's options and handlers: the protocol's for a peer of
    /// toastd's own user (or root, with `allowRoot`), a refusal for any
    /// other, or for one whose credentials could not be read.
    private static func setUp(
        _ channel: any Channel, peer credentials: PeerCredentials?, hub: ToastHub, options: DaemonOptions, logger: Logger
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        let channelOptions = channel.syncOptions
        try channelOptions?.setOption(.allowRemoteHalfClosure, value: true)
        try channelOptions?.setOption(.writeBufferWaterMark, value: writeBufferWaterMark)
        let uid = credentials?.uid ?? UInt32.max
        guard uid == getuid() || (options.allowRoot && uid == 0) else {
            logger.warning("refused a connection from another user", metadata: ["uid": "\(uid)"])
            try pipeline.addHandler(PeerRefusalHandler(ToastError(.forbidden, "toastd serves only its own user")))
            return
        }
        let source = credentials.map { processName(pid: $0.pid) } ?? "unknown"
        try pipeline.addHandler(ByteToMessageHandler(LineFramer(maxLineBytes: options.maxLineBytes)))
        try pipeline.addHandler(ConnectionHandler(hub: hub, source: source))
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

    /// The signals toastd answers. Taken on a thread of their own
    /// (`BlockedSignals`); toastd's executable blocks them before it starts
    /// any thread, so one sent during start-up waits for this instead of
    /// being lost.
    public static let handledSignals = [SIGTERM, SIGINT, SIGHUP]

    /// SIGTERM and SIGINT stop the lifecycle; SIGHUP reloads (the reload
    /// protocol of Type=notify-reload: RELOADING=1, the file read again,
    /// then READY=1; every toast and connection stays).
    private func installSignalHandlers() {
        BlockedSignals.wait(for: Self.handledSignals) { [self] signalNumber in
            if signalNumber == SIGHUP {
                let hub = self.hub
                hub.loop.execute { hub.reload(answering: nil, ref: nil) }
            } else {
                stop(reason: signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")
            }
        }
    }

    /// Graceful shutdown: every service stops, in reverse order of start.
    public func stop(reason: String) {
        let lifecycle = self.lifecycle
        hub.loop.execute { lifecycle.stop(reason: reason) }
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var result = self
        while let last = result.last, predicate(last) { result.removeLast() }
        return result
    }
}
