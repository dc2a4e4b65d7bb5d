// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import ToastSystem
#if canImport(Glibc)
import Glibc
#endif

/// What toastd owes its service manager while it runs, as a service: the
/// last to start and the first to stop.
///
/// At start: READY=1, the heap's free pages handed back (reading the
/// restored state from the store allocates and frees twice what the hub
/// keeps: 100,000 live toasts held 89 MiB anonymous after a restart without
/// this, 31 with it). Then, as `RestTimers` decides, STATUS= when the status
/// changed (at most once a second) and the code pages let go of
/// (`CodePages`) after 30 s without a step, the first time 30 s after start: both armed by steps, none repeating, so an idle
/// toastd does not wake. And WATCHDOG=1 at half the watchdog interval, from
/// the event loop itself, so that a wedged loop stops the pings and is
/// killed: under systemd, the only wakeup at rest. At stop: STOPPING=1, and
/// the timers end.
final class ServiceManagerDuties: DaemonService, @unchecked Sendable {
    let name = "service manager"
    private let hub: ToastHub
    private let hooks: ServiceManagerHooks
    private let logger: Logger
    private var watchdog: RepeatedTask?
    private var statusTask: Scheduled<Void>?
    private var quietTask: Scheduled<Void>?
    private var timers: RestTimers
    private var stopped = false

    init(hub: ToastHub, hooks: ServiceManagerHooks, logger: Logger) {
        self.hub = hub
        self.hooks = hooks
        self.logger = logger
        timers = RestTimers(status: "", now: 0)
    }

    private static var now: Int64 { monotonicMilliseconds() }

    func start() -> EventLoopFuture<Void> {
        let loop = hub.loop
        let status = hub.statusLine
        hooks.ready(status)
        hub.releaseFreePages()
        timers = RestTimers(status: status, now: Self.now, quiet: Self.quietMilliseconds)
        carryOut(timers.started(now: Self.now))
        hub.onStepEnded = { [self] in carryOut(timers.stepEnded(now: Self.now)) }
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
            case .armQuiet(let at):
                quietTask = arm(at) { [self] in carryOut(timers.quietTimerFired(now: Self.now)) }
            case .releaseCodePages:
                releaseCodePages()
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
        quietTask?.cancel()
        return hub.loop.makeSucceededVoidFuture()
    }

    /// The quiet spell before the code pages go: 30 s, or
    /// `TOASTD_QUIET_SECONDS` (0.1 to 3600), which the tests shorten.
    private static var quietMilliseconds: Int64 {
        guard let text = getenv("TOASTD_QUIET_SECONDS").map({ String(cString: $0) }), let seconds = Double(text),
            (0.1...3_600).contains(seconds)
        else { return 30_000 }
        return Int64(seconds * 1_000)
    }

    private func releaseCodePages() {
        // TOASTD_KEEP_CODE_PAGES: for the benchmark that weighs them (BENCHMARKS.md, "At rest").
        if getenv("TOASTD_KEEP_CODE_PAGES") != nil { return }
        let released = CodePages.release()
        logger.debug("let go of code pages", metadata: ["KiB": "\(released / 1024)"])
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
