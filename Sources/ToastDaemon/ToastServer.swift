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

/// Everything toastd can be told on its command line.
public struct DaemonOptions: Sendable {
    public var socketPath: String
    public var maxLineBytes = ProtocolInfo.defaultMaxLineBytes
    public var scheduler = SchedulerConfiguration()
    public var maxConnections = 256
    public var subscriberBufferBytes = 1 << 20
    /// How long a lagged subscriber may go without draining its buffer before it is disconnected.
    public var subscriberLagTimeout: Duration = .seconds(10)
    /// Accept connections from root as well as from our own uid.
    public var allowRoot = true

    public init(socketPath: String) {
        self.socketPath = socketPath
    }
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
        var limits = ToastHub.Limits()
        limits.maxConnections = options.maxConnections
        limits.subscriberBufferBytes = options.subscriberBufferBytes
        let (seconds, attoseconds) = options.subscriberLagTimeout.components
        limits.lagTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        hub = ToastHub(loop: group.next(), configuration: options.scheduler, limits: limits, logger: logger)
    }

    /// Binds the socket and serves until a signal stops the daemon.
    public func run() throws {
        defer { try? group.syncShutdownGracefully() }
        try SocketFile.prepare(options.socketPath)
        let channel = try bind()
        let stopped = hub.loop.makePromise(of: Void.self)
        self.stopped = stopped
        serverChannel = channel
        logger.info("toastd listening", metadata: ["socket": "\(options.socketPath)"])
        installSignalHandlers()
        try stopped.futureResult.wait()
    }

    private func bind() throws -> any Channel {
        let hub = self.hub
        let options = self.options
        let logger = self.logger
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
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
                            ConnectionHandler(hub: hub, source: source, maxLineBytes: options.maxLineBytes)
                        )
                    }
                }
            }
        let previous = umask(0o177)
        defer { umask(previous) }
        let channel = try bootstrap.bind(unixDomainSocketPath: options.socketPath).wait()
        chmod(options.socketPath, 0o600)
        return channel
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
        let fd = open("/proc/\(pid)/comm", O_RDONLY)
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
                    logger.notice("SIGHUP received; reload is reserved and does nothing yet")
                } else {
                    stop(reason: signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")
                }
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Graceful shutdown: stop accepting, tell subscribers, flush, close,
    /// remove the socket file.
    public func stop(reason: String) {
        let loop = hub.loop
        loop.execute { [self] in
            guard !hub.isShuttingDown else { return }
            logger.info("shutting down", metadata: ["reason": "\(reason)"])
            let server = serverChannel
            server?.close(promise: nil)
            unlink(options.socketPath)
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
