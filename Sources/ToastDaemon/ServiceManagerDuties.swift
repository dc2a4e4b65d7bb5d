// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore

/// What toastd owes its service manager while it runs, as a service: the
/// last to start and the first to stop.
///
/// At start: READY=1, and the code pages start-up touched let go of
/// (`CodePages`), as they are again after 30 s without a step
/// (`IdleTrim`); then STATUS= at most once a second, only when it changed;
/// and WATCHDOG=1 at half the watchdog interval, from the event loop
/// itself, so that a wedged loop stops the pings and is killed. At stop:
/// STOPPING=1, and the timers end.
final class ServiceManagerDuties: DaemonService, @unchecked Sendable {
    let name = "service manager"
    private let hub: ToastHub
    private let hooks: ServiceManagerHooks
    private let logger: Logger
    private var timers: [RepeatedTask] = []
    private var lastStatus = ""
    private var trim: IdleTrim

    /// How often `IdleTrim` looks at the step count, and after how many
    /// quiet looks in a row the code pages are let go of again (30 s).
    static let idleTrimTick = TimeAmount.seconds(10)
    static let idleTrimTicks = 3

    init(hub: ToastHub, hooks: ServiceManagerHooks, logger: Logger) {
        self.hub = hub
        self.hooks = hooks
        self.logger = logger
        trim = IdleTrim(quietTicks: Self.idleTrimTicks, steps: 0)
    }

    func start() -> EventLoopFuture<Void> {
        let loop = hub.loop
        lastStatus = hub.statusLine
        hooks.ready(lastStatus)
        releaseCodePages(when: "ready")
        trim = IdleTrim(quietTicks: Self.idleTrimTicks, steps: hub.steps)
        timers.append(loop.scheduleRepeatedTask(initialDelay: Self.idleTrimTick, delay: Self.idleTrimTick) { [self] _ in
            if trim.tick(steps: hub.steps) { releaseCodePages(when: "idle") }
        })
        timers.append(loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [self] _ in
            let line = hub.statusLine
            if line != lastStatus {
                lastStatus = line
                hooks.status(line)
            }
        })
        if let watchdog = hooks.watchdog {
            let half = TimeAmount.nanoseconds(watchdog.nanoseconds / 2)
            hooks.watchdogPing()
            timers.append(loop.scheduleRepeatedTask(initialDelay: half, delay: half) { [hooks] _ in hooks.watchdogPing() })
        }
        return loop.makeSucceededVoidFuture()
    }

    func stop(reason: String) -> EventLoopFuture<Void> {
        hooks.stopping()
        logger.info("shutting down", metadata: ["reason": "\(reason)"])
        for timer in timers { timer.cancel() }
        timers = []
        return hub.loop.makeSucceededVoidFuture()
    }

    private func releaseCodePages(when: String) {
        let released = CodePages.release()
        logger.debug("let go of code pages", metadata: ["when": "\(when)", "KiB": "\(released / 1024)"])
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
