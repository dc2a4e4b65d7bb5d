// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import Synchronization
import ToastSystem
#if canImport(Glibc)
import Glibc
#endif

/// What toastd owes its service manager while it runs, as a service: the
/// last to start and the first to stop.
///
/// At start: READY=1; the heap's free pages handed back (reading the
/// restored state from the store allocates and frees twice what the hub
/// keeps: 100,000 live toasts held 89 MiB anonymous after a restart without
/// this, 31 with it); and, on a thread of its own so that the first client
/// does not wait for it, the code every request runs mapped with huge pages
/// (`HugeCodePages`), the code start-up touched kept or let go of
/// (`settleCode`), and the pages of the toastctl beside toastd held in
/// memory (`ClientPages`), so that a session's first `toastctl add` after a
/// rest does not wait on the disk (held anew after a step, at most once a
/// second, when an upgrade has replaced it): at once, or, when a client is
/// already waiting on the inherited socket (the one whose connection
/// started toastd), a moment later, once it has its answer. Then STATUS=
/// when the status changed, at most once a second (`RestTimers`), armed by
/// steps and not repeating, so an idle toastd does not wake. And WATCHDOG=1
/// at half the watchdog interval, from the event loop itself, so that a
/// wedged loop stops the pings and is killed: under systemd, the only
/// wakeup at rest. At stop: STOPPING=1, and the timers end.
final class ServiceManagerDuties: DaemonService, @unchecked Sendable {
    let name = "service manager"
    private let hub: ToastHub
    private let hooks: ServiceManagerHooks
    private let logger: Logger
    private let listeningSocket: Int32?
    private var watchdog: RepeatedTask?
    private var statusTask: Scheduled<Void>?
    private var settleTask: Scheduled<Void>?
    private var timers: RestTimers
    private var stopped = false
    /// The toastctl beside toastd and its pages, once the settling thread
    /// has held them (the path stays, should the file go for a while).
    private let client = Mutex<(path: String, held: ClientPages.Held?)?>(nil)
    private var clientCheckedAt: Int64 = 0

    /// How long after READY=1 the hot code is mapped again when a client
    /// was waiting: its request is answered within milliseconds.
    static let settleDelayWhenAClientWaits = TimeAmount.milliseconds(250)

    /// How often, at most, a step looks whether toastctl was replaced: a
    /// stat(2) of about a microsecond, after the step's writes.
    static let clientCheckInterval: Int64 = 1000

    /// `listeningSocket`: the socket toastd inherited, if it did.
    init(hub: ToastHub, hooks: ServiceManagerHooks, logger: Logger, listeningSocket: Int32? = nil) {
        self.hub = hub
        self.hooks = hooks
        self.logger = logger
        self.listeningSocket = listeningSocket
        timers = RestTimers(status: "", now: 0)
    }

    private static var now: Int64 { monotonicMilliseconds() }

    func start() -> EventLoopFuture<Void> {
        let loop = hub.loop
        let status = hub.statusLine
        hooks.ready(status)
        hub.releaseFreePages()
        if let listeningSocket, SocketFile.hasPendingConnection(listeningSocket) {
            // Unmapping code while the waiting client's request runs made it
            // fault the pages straight back: 0.4 to 1.2 ms of the socket-
            // activated first add (BENCHMARKS.md, "At rest").
            settleTask = loop.scheduleTask(in: Self.settleDelayWhenAClientWaits) { [self] in
                settleCode(when: "after the waiting client's answer")
            }
        } else {
            settleCode(when: "at start")
        }
        timers = RestTimers(status: status, now: Self.now)
        hub.onStepEnded = { [self] in
            let now = Self.now
            carryOut(timers.stepEnded(now: now))
            if now - clientCheckedAt >= Self.clientCheckInterval {
                clientCheckedAt = now
                hub.loop.execute { [self] in renewClientPages() }
            }
        }
        hub.onStatusSent = { [self] line in timers.statusSent(line, now: Self.now) }
        if let interval = hooks.watchdog {
            let half = TimeAmount.nanoseconds(interval.nanoseconds / 2)
            hooks.watchdogPing()
            watchdog = loop.scheduleRepeatedTask(initialDelay: half, delay: half) { [hooks] _ in hooks.watchdogPing() }
        }
        return loop.makeSucceededVoidFuture()
    }

    private func carryOut(_ actions: [RestTimers.Action]) {
        guard !stopped else { return }
        for action in actions {
            switch action {
            case .armStatus(let at):
                statusTask = arm(at) { [self] in carryOut(timers.statusTimerFired(now: Self.now, status: hub.statusLine)) }
            case .sendStatus(let line):
                hooks.status(line)
            }
        }
    }

    private func arm(_ at: Int64, _ body: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        hub.loop.scheduleTask(in: .milliseconds(max(0, at - Self.now)), body)
    }

    func stop(reason: String) -> EventLoopFuture<Void> {
        hooks.stopping()
        logger.info("shutting down", metadata: ["reason": "\(reason)"])
        stopped = true
        hub.onStepEnded = nil
        watchdog?.cancel()
        statusTask?.cancel()
        settleTask?.cancel()
        return hub.loop.makeSucceededVoidFuture()
    }

    /// Once, on a thread of its own (reading the maps and mapping blocks
    /// again took milliseconds of the loop): the code every request runs
    /// mapped with huge pages (`HugeCodePages`; `TOASTD_SMALL_CODE_PAGES`
    /// leaves it in small ones, for the rest benchmark), then toastctl's
    /// pages held (`ClientPages`).
    ///
    /// The code pages start-up touched stay mapped, unless the page cache
    /// holds toastd's binary in large folios (`LargeFolios`: written whole or
    /// read in sequence), where keeping them kept the folios around them,
    /// 16.2 MiB of PSS instead of 8.4. Then they are let go of (`CodePages`)
    /// and the rest of the code is read back in small folios (`CodeFolios`).
    /// Letting go of them every time saved 0.9 MiB of PSS but cost the first
    /// add after an hour idle (docs/BENCHMARKS.md, "An hour at rest,
    /// twice"). `TOASTD_RELEASE_CODE_PAGES` lets go of them every time, for
    /// that benchmark.
    private func settleCode(when: String) {
        let small = getenv("TOASTD_SMALL_CODE_PAGES") != nil
        let always = getenv("TOASTD_RELEASE_CODE_PAGES") != nil
        let logger = logger
        // A thread that ends when it is done: a Dispatch worker stayed and woke once a second.
        DetachedThread.start {
            guard let executable = OwnExecutable() else { return }
            let code = ProcFile.bytes("/proc/self/maps").flatMap { HugeCodePages.code(maps: $0, executable: executable.path) }
            // The code whose hot blocks go huge, if they do.
            let hugeCode = small || !HugeCodePages.kernelOffersHugePages ? nil : code
            let hot = hugeCode.map { HugeCodePages.blocks(start: $0.start, end: $0.end, offset: $0.offset, limit: HugeCodePages.hotBlocks) } ?? []
            let large = code.map { LargeFolios.hold($0, of: executable, excluding: hot, blockSize: HugeCodePages.blockSize) } ?? false
            let release = always || large
            let released = release ? CodePages.release() : CodePages.Released()
            let huge = hugeCode.map { HugeCodePages.map($0, of: executable.file, limit: HugeCodePages.hotBlocks) } ?? HugeCodePages.Mapped()
            let reread = release ? CodeFolios.reread(released.mappings, of: executable, excluding: huge.blocks, blockSize: HugeCodePages.blockSize) : 0
            logger.debug(
                release ? "let go of start-up code pages" : "kept start-up code pages",
                metadata: [
                    "when": "\(when)", "folios": "\(large ? "large" : "small")", "KiB": "\(released.bytes / 1024)",
                    "readBackKiB": "\(reread / 1024)", "hugeKiB": "\(huge.bytes / 1024)",
                ]
            )
            guard let path = ClientPages.siblingPath(of: executable.path) else { return }
            let held = ClientPages.hold(path)
            if let held {
                logger.debug("holding toastctl's pages", metadata: ["path": "\(held.path)", "KiB": "\(held.length / 1024)"])
            }
            self.client.withLock { $0 = (path, held) }
        }
    }

    /// The toastctl beside toastd held anew if it was replaced (an upgrade):
    /// the old file's pages let go of, the new one's held.
    private func renewClientPages() {
        client.withLock { client in
            guard let (path, held) = client else { return }
            let renewed = ClientPages.renewed(held, at: path)
            if renewed != held {
                logger.info("toastctl replaced; holding the new one's pages", metadata: ["path": "\(path)", "held": "\(renewed != nil)"])
            }
            client = (path, renewed)
        }
    }
}

/// The hub as a service: at start, the configuration in force and the
/// restored state's first step committed, before anyone connects; at stop,
/// every subscriber told, every connection flushed and closed, and the last
/// steps on disk.
final class HubService: DaemonService, @unchecked Sendable {
    let name = "hub"
    private let hub: ToastHub
    private let options: DaemonOptions

    init(hub: ToastHub, options: DaemonOptions) {
        self.hub = hub
        self.options = options
    }

    func start() -> EventLoopFuture<Void> {
        hub.serviceManager = options.serviceManager
        hub.configurationSource = options.configuration
        let source = options.configuration ?? ConfigurationSource(path: nil, isExplicit: false)
        if let resolved = source.resolve(options.initialConfiguration) {
            hub.install(resolved)
        } else if case .refused(let invalid) = options.initialConfiguration {
            // A typo must not mean no toasts: the defaults serve, and the error is loud.
            hub.install(source.resolve(.defaults)!, error: invalid.description)
        }
        var bound: [String] = []
        if case .durable(_, let loaded) = options.storage { bound = loaded.boundSources }
        return hub.start(endingSources: bound)
    }

    func stop(reason: String) -> EventLoopFuture<Void> {
        hub.shutdown(reason: reason)
    }
}
