import ArgumentParser
import Logging
import NIOCore
import Systemd
import ToastCore
import CommandLineSupport
import ToastConfig
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
            /tmp/toastd-$UID/toastd.sock. The configuration file is --config, else \
            $XDG_CONFIG_HOME/toastd/config.toml, else ~/.config/toastd/config.toml; flags win over it. \
            SIGTERM and SIGINT shut down gracefully; SIGHUP reloads the file (RELOADING=1, then \
            READY=1): a refused file leaves the one in force and shows its error in status. Under \
            systemd: socket activation (the inherited socket is served and never unlinked), READY=1 \
            once the socket accepts, a STATUS= line at most once a second, WATCHDOG=1 at half of \
            WatchdogSec=, STOPPING=1, and structured journal entries when stderr is the journal.
            """,
        version: ProtocolInfo.toolVersion
    )

    @Option(help: "The Unix socket to listen on.")
    var socket: String?

    @Option(help: "The configuration file (default: $XDG_CONFIG_HOME/toastd/config.toml).") var config: String?
    @Option(
        help: ArgumentHelp(
            "Check a configuration file (the default one, or --config's, when FILE is left out), print each error with its line and column, and exit.",
            valueName: "FILE"
        )
    )
    var checkConfig: String?

    @Option(help: "Shown slots of each top stack (default 3).") var maxVisibleTop: Int?
    @Option(help: "Shown slots of each center (HUD) stack (default 1).") var maxVisibleCenter: Int?
    @Option(help: "Shown slots of each bottom stack (default 3).") var maxVisibleBottom: Int?
    @Option(help: "Live toasts held at most, in all (default 100000).") var maxToasts: Int?
    @Option(help: "Live toasts held at most for one source (default 10000).") var maxToastsPerSource: Int?
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
    @Option(help: "Ended toasts kept for 'toastctl history' and 'restore' (default \(ProtocolInfo.defaultHistorySize)).")
    var historySize: Int?
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
        where value.map({ !(1...limit).contains($0) }) ?? false {
            throw ValidationError("--max-visible-\(name) must be between 1 and \(limit).")
        }
        for (name, value) in [
            ("--max-toasts", maxToasts ?? 1), ("--max-toasts-per-source", maxToastsPerSource ?? 1),
            ("--max-line-bytes", maxLineBytes), ("--max-connections", maxConnections),
            ("--subscriber-buffer-bytes", subscriberBufferBytes),
        ] where value < 1 {
            throw ValidationError("\(name) must be at least 1.")
        }
        guard (0...1_000_000).contains(historySize ?? 0) else {
            throw ValidationError("--history-size must be between 0 and 1000000.")
        }
        if ephemeral && stateDir != nil { throw ValidationError("--ephemeral and --state-dir exclude each other.") }
        guard (0...1_000_000).contains(resumeEvents) else {
            throw ValidationError("--resume-events must be between 0 and 1000000.")
        }
        guard subscriberLagTimeout > 0 else { throw ValidationError("--subscriber-lag-timeout must be positive.") }
    }

    var overrides: SchedulerConfiguration.Overrides {
        SchedulerConfiguration.Overrides(
            maxVisibleTop: maxVisibleTop, maxVisibleCenter: maxVisibleCenter, maxVisibleBottom: maxVisibleBottom,
            maxToasts: maxToasts, maxToastsPerSource: maxToastsPerSource
        )
    }

    /// `--check-config`: every error with its line and column, exit 1; or exit 0.
    func check(_ file: String, environment: [String: String]) throws {
        guard let path = file.isEmpty ? (config ?? ToastdConfig.defaultPath(environment: environment)) : file else {
            printError("toastd: no configuration file to check: give FILE, or set HOME")
            throw ExitCode(2)
        }
        if file.isEmpty && config == nil && !ToastdConfig.exists(path) {
            print("\(path): no such file; toastd runs on its defaults")
            return
        }
        switch ToastdConfig.load(path: path) {
        case .success(let loaded):
            print("\(path): ok, \(loaded.rules.rules.count) rules")
        case .failure(let invalid):
            printError(invalid.description)
            throw ExitCode(1)
        }
    }

    func run() throws {
        let environment = ProcessInfoEnvironment.current
        if let checkConfig {
            try check(checkConfig, environment: environment)
            return
        }
        // Whatever toastd creates (its state, its socket) is its user's alone.
        umask(0o077)
        let level = Logger.Level(rawValue: logLevel) ?? .info
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
        let source = ConfigurationSource(
            path: config ?? ToastdConfig.defaultPath(environment: environment), isExplicit: config != nil,
            overrides: overrides
        )
        options.configuration = source
        options.initialConfiguration = source.load()
        var fileHistorySize: Int?
        switch options.initialConfiguration {
        case .defaults:
            break
        case .loaded(let loaded):
            fileHistorySize = loaded.historySize
            logger.info("configuration loaded", metadata: ["path": "\(source.path ?? "-")", "rules": "\(loaded.rules.rules.count)"])
        case .refused(let invalid):
            logger.critical(
                "configuration refused; toastd runs on its defaults until a good file is loaded",
                metadata: ["problems": "\(invalid.description)"]
            )
            printError("toastd: configuration refused; running on the defaults:\n\(invalid.description)")
        }
        let historySize = self.historySize ?? fileHistorySize ?? ProtocolInfo.defaultHistorySize
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
                    version: ProtocolInfo.toolVersion,
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

/// `--freedesktop` alone means `--freedesktop=own`; `--check-config` takes
/// an optional FILE (alone, it checks the default file or --config's).
func preprocess(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let argument = arguments[index]
        index += 1
        switch argument {
        case "--freedesktop":
            result.append("--freedesktop=own")
        case "--check-config":
            if index < arguments.endIndex, !arguments[index].hasPrefix("-") {
                result.append("--check-config=" + arguments[index])
                index += 1
            } else {
                result.append("--check-config=")
            }
        default:
            result.append(argument)
        }
    }
    return result
}

CommandLineTool.main(Toastd.self, arguments: preprocess(Array(CommandLine.arguments.dropFirst())))
