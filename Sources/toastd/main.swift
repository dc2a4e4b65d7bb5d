import ArgumentParser
import Logging
import NIOCore
import Systemd
import ToastCore
import ToastClient
import ToastDaemon
import ToastFreedesktop
import ToastStore

#if canImport(Glibc)
import Glibc
#endif

struct Toastd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toastd",
        abstract: "The toast daemon: schedules every toast of the session and serves them on a Unix socket.",
        discussion: """
            The socket is --socket, else $TOASTD_SOCKET, else $XDG_RUNTIME_DIR/toastd.sock, else \
            /tmp/toastd-$UID/toastd.sock. SIGTERM and SIGINT shut down gracefully; SIGHUP is reserved \
            for reloading (RELOADING=1, then READY=1; there is no configuration file yet). Under \
            systemd: socket activation (the inherited socket is served and never unlinked), READY=1 \
            once the socket accepts, a STATUS= line at most once a second, WATCHDOG=1 at half of \
            WatchdogSec=, STOPPING=1, and structured journal entries when stderr is the journal.
            """
    )

    @Option(help: "The Unix socket to listen on.")
    var socket: String?

    @Option(help: "Shown slots of each top stack.") var maxVisibleTop = 3
    @Option(help: "Shown slots of each center (HUD) stack.") var maxVisibleCenter = 1
    @Option(help: "Shown slots of each bottom stack.") var maxVisibleBottom = 3
    @Option(help: "Live toasts held at most, in all.") var maxToasts = 100_000
    @Option(help: "Live toasts held at most for one source.") var maxToastsPerSource = 10_000
    @Option(help: "The longest request line accepted, in bytes.") var maxLineBytes = ProtocolInfo.defaultMaxLineBytes
    @Option(help: "Connections served at most at once.") var maxConnections = 256
    @Option(help: "Unwritten bytes a subscriber may hold before it is lagged.") var subscriberBufferBytes = 1 << 20
    @Option(help: "Seconds a lagged subscriber may go without reading before it is disconnected.")
    var subscriberLagTimeout = 10.0
    @Option(help: "Recent events kept for subscribers that resume with 'since' (0 keeps none).")
    var resumeEvents = ProtocolInfo.defaultResumeEvents
    @Option(help: "Where the state (toasts, counters, history) lives: DIR/toastd.sqlite. Default: $XDG_STATE_HOME/toastd, else ~/.local/state/toastd.")
    var stateDir: String?
    @Flag(help: "Keep everything in memory: nothing survives a restart.") var ephemeral = false
    @Option(
        help: ArgumentHelp(
            "Serve org.freedesktop.Notifications on the session bus: --freedesktop, or --freedesktop=replace to take the name over.",
            valueName: "own|replace"
        )
    )
    var freedesktop: FreedesktopMode?

    enum FreedesktopMode: String, ExpressibleByArgument, CaseIterable {
        case own, replace
    }
    @Option(help: "Ended toasts kept for 'toastctl history' and 'restore'.") var historySize = ProtocolInfo.defaultHistorySize
    @Flag(help: "Refuse connections from root too (by default root may connect).") var denyRoot = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String = "info"
    @Option(help: "Where logs go: auto (the journal when stderr is connected to it), journal, or stderr.")
    var logTarget: LogTarget = .auto

    enum LogTarget: String, ExpressibleByArgument, CaseIterable {
        case auto, journal, stderr
    }

    func validate() throws {
        let limit = SchedulerConfiguration.maxVisibleLimit
        for (name, value) in [("top", maxVisibleTop), ("center", maxVisibleCenter), ("bottom", maxVisibleBottom)]
        where !(1...limit).contains(value) {
            throw ValidationError("--max-visible-\(name) must be between 1 and \(limit).")
        }
        for (name, value) in [
            ("--max-toasts", maxToasts), ("--max-toasts-per-source", maxToastsPerSource),
            ("--max-line-bytes", maxLineBytes), ("--max-connections", maxConnections),
            ("--subscriber-buffer-bytes", subscriberBufferBytes),
        ] where value < 1 {
            throw ValidationError("\(name) must be at least 1.")
        }
        guard (0...1_000_000).contains(historySize) else {
            throw ValidationError("--history-size must be between 0 and 1000000.")
        }
        if ephemeral && stateDir != nil { throw ValidationError("--ephemeral and --state-dir exclude each other.") }
        guard (0...1_000_000).contains(resumeEvents) else {
            throw ValidationError("--resume-events must be between 0 and 1000000.")
        }
        guard subscriberLagTimeout > 0 else { throw ValidationError("--subscriber-lag-timeout must be positive.") }
    }

    func run() throws {
        // Whatever toastd creates (its state, its socket) is its user's alone.
        umask(0o077)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let environment = ProcessInfoEnvironment.current
        let journal =
            logTarget == .journal || (logTarget == .auto && JournalLogHandler.stderrIsJournal(environment: environment))
        LoggingSystem.bootstrap { label in
            if journal {
                var handler = JournalLogHandler(label: label, identifier: "toastd", fieldPrefix: "TOASTD_")
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "toastd")
        let path = SocketLocation.resolve(explicit: socket, environment: environment, uid: getuid())
        var options = DaemonOptions(socketPath: path)
        options.scheduler = SchedulerConfiguration(
            maxVisibleTop: maxVisibleTop, maxVisibleCenter: maxVisibleCenter, maxVisibleBottom: maxVisibleBottom,
            maxToasts: maxToasts, maxToastsPerSource: maxToastsPerSource
        )
        options.maxLineBytes = maxLineBytes
        options.maxConnections = maxConnections
        options.subscriberBufferBytes = subscriberBufferBytes
        options.subscriberLagTimeout = .milliseconds(Int64(subscriberLagTimeout * 1_000))
        options.resumeEvents = resumeEvents
        options.historySize = historySize
        options.allowRoot = !denyRoot
        if !ephemeral {
            let directory = stateDir ?? StateLocation.resolve(environment: environment)
            do {
                let (store, loaded) = try ToastStore.open(directory: directory, historySize: historySize)
                for note in loaded.notes { logger.error("\(note)") }
                logger.info(
                    "state restored",
                    metadata: ["database": "\(store.path)", "toasts": "\(loaded.state.records.count)", "instance": "\(loaded.instance)"]
                )
                options.storage = .durable(store, loaded)
            } catch .locked(let directory) {
                logger.critical("\(ToastStore.Failure.locked(directory))")
                throw ExitCode(1)
            } catch {
                logger.error("persistence degraded: toastd keeps serving from memory", metadata: ["reason": "\(error)"])
                options.storage = .degraded("\(error)")
            }
        }
        if let inherited = SocketActivation.listeningSockets().first {
            guard SocketActivation.isListeningUnixStream(inherited.fileDescriptor) else {
                logger.critical("the inherited socket is not a listening Unix stream socket", metadata: ["name": "\(inherited.name)"])
                throw ExitCode(1)
            }
            options.inheritedSocket = inherited.fileDescriptor
        }
        if let freedesktop {
            let socketPath = options.socketPath
            options.onListening = { board in
                let server = NotificationServer(
                    socketPath: socketPath, ownership: freedesktop == .replace ? .replace : .ifFree,
                    version: ProtocolInfo.server.split(separator: "/").last.map(String.init) ?? "0",
                    onState: { state in
                        board.set("freedesktop", state.description)
                        switch state {
                        case .owner, .starting: logger.info("\(state.description)")
                        case .notOwner, .failed: logger.warning("\(state.description)")
                        }
                    }
                )
                server.start()
            }
        }
        let notifier = ServiceNotifier()
        if notifier.isSupervised {
            options.serviceManager.ready = { notifier.ready(status: $0) }
            options.serviceManager.status = { notifier.status($0) }
            options.serviceManager.reloading = { notifier.reloading() }
            options.serviceManager.stopping = { notifier.stopping() }
            if let interval = ServiceNotifier.watchdogInterval() {
                options.serviceManager.watchdog = TimeAmount(interval)
                options.serviceManager.watchdogPing = { notifier.watchdog() }
            }
        }
        do {
            try ToastServer(options: options, logger: logger).run()
        } catch let problem as SocketFile.Problem {
            logger.critical("\(problem)")
            throw ExitCode(1)
        }
    }
}

// `--freedesktop` alone means `--freedesktop=own`.
Toastd.main(CommandLine.arguments.dropFirst().map { $0 == "--freedesktop" ? "--freedesktop=own" : $0 })
