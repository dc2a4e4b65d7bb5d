// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import Logging
import NIOCore
import Systemd
import ToastConfig
import ToastCore
import ToastDaemon
import ToastFreedesktop
import ToastStore

#if canImport(Glibc)
import Glibc
#endif

/// `toastd`'s flags, their validation against `DaemonOptions.Limits`, and
/// the mapping from flags (and the configuration file) to `DaemonOptions`.
public struct Toastd: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
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

    @Option(help: "Shown slots of each top stack (default \(Self.defaults.scheduler.maxVisibleTop)).") var maxVisibleTop: Int?
    @Option(help: "Shown slots of each center (HUD) stack (default \(Self.defaults.scheduler.maxVisibleCenter)).")
    var maxVisibleCenter: Int?
    @Option(help: "Shown slots of each bottom stack (default \(Self.defaults.scheduler.maxVisibleBottom)).")
    var maxVisibleBottom: Int?
    @Option(help: "Live toasts held at most, in all (default \(Self.defaults.scheduler.maxToasts)).") var maxToasts: Int?
    @Option(help: "Live toasts held at most for one source (default \(Self.defaults.scheduler.maxToastsPerSource)).")
    var maxToastsPerSource: Int?
    @Option(help: "The longest request line accepted, in bytes.") var maxLineBytes = Self.defaults.maxLineBytes
    @Option(help: "Connections served at most at once.") var maxConnections = Self.defaults.maxConnections
    @Option(help: "Unwritten bytes a subscriber may hold before it falls behind.")
    var subscriberBufferBytes = Self.defaults.subscriberBufferBytes
    @Option(help: "Seconds a subscriber may go without reading before it is disconnected.")
    var subscriberLagTimeout = Double(Self.defaults.subscriberLagTimeout.components.seconds)
    @Option(help: "Recent events kept for subscribers that resume with 'since' (0 keeps none).")
    var resumeEvents = Self.defaults.resumeEvents
    @Option(help: "Where the state (toasts, counters, history) lives: DIR/toastd.sqlite and its journal, DIR/toastd.journal-a and -b. Default: $XDG_STATE_HOME/toastd, else ~/.local/state/toastd.")
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
    @Option(help: "Ended toasts kept for 'toastctl history' and 'restore' (default \(Self.defaults.historySize)).")
    var historySize: Int?
    @Flag(help: "Refuse connections from root too (by default root may connect).") var denyRoot = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String = "info"
    @Option(help: "Where logs go: auto (the journal when stderr is connected to it), journal, or stderr.")
    var logTarget: LogTarget = .auto

    enum LogTarget: String, ExpressibleByArgument, CaseIterable {
        case auto, journal, stderr
    }

    private static let defaults = DaemonOptions.defaults

    /// Every number against its range in `DaemonOptions.Limits`: out of
    /// range is a usage error naming the flag and the range.
    public func validate() throws {
        typealias Limits = DaemonOptions.Limits
        try Self.check("--max-visible-top", maxVisibleTop, Limits.maxVisible)
        try Self.check("--max-visible-center", maxVisibleCenter, Limits.maxVisible)
        try Self.check("--max-visible-bottom", maxVisibleBottom, Limits.maxVisible)
        try Self.check("--max-toasts", maxToasts, Limits.maxToasts)
        try Self.check("--max-toasts-per-source", maxToastsPerSource, Limits.maxToasts)
        try Self.check("--max-line-bytes", maxLineBytes, Limits.maxLineBytes)
        try Self.check("--max-connections", maxConnections, Limits.maxConnections)
        try Self.check("--subscriber-buffer-bytes", subscriberBufferBytes, Limits.subscriberBufferBytes)
        try Self.check("--subscriber-lag-timeout", subscriberLagTimeout, Limits.subscriberLagTimeoutSeconds)
        try Self.check("--resume-events", resumeEvents, Limits.resumeEvents)
        try Self.check("--history-size", historySize, Limits.historySize)
        if ephemeral && stateDir != nil { throw ValidationError("--ephemeral and --state-dir exclude each other.") }
    }

    static func check<Value: Comparable>(_ flag: String, _ value: Value?, _ range: ClosedRange<Value>) throws {
        guard let value, !range.contains(value) else { return }
        throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound), not \(value).")
    }

    var overrides: SchedulerConfiguration.Overrides {
        SchedulerConfiguration.Overrides(
            maxVisibleTop: maxVisibleTop, maxVisibleCenter: maxVisibleCenter, maxVisibleBottom: maxVisibleBottom,
            maxToasts: maxToasts, maxToastsPerSource: maxToastsPerSource
        )
    }

    /// The configuration file (`--config`, else the default one) and the
    /// flags that win over it.
    public func configurationSource(environment: [String: String]) -> ConfigurationSource {
        ConfigurationSource(
            path: config ?? ToastdConfig.defaultPath(environment: environment), isExplicit: config != nil,
            overrides: overrides
        )
    }

    /// The daemon's options from the flags, over the file's (`initialConfiguration`,
    /// what reading it gave), over `DaemonOptions`' defaults. The storage,
    /// the inherited socket and the service manager's hooks are `run`'s.
    public func options(
        environment: [String: String], uid: UInt32, initialConfiguration: ConfigurationSource.Outcome
    ) -> DaemonOptions {
        var options = DaemonOptions(socketPath: SocketLocation.resolve(explicit: socket, environment: environment, uid: uid))
        options.configuration = configurationSource(environment: environment)
        options.initialConfiguration = initialConfiguration
        if let resolved = options.configuration?.resolve(initialConfiguration) { options.scheduler = resolved.scheduler }
        var fileHistorySize: Int?
        if case .loaded(let loaded) = initialConfiguration { fileHistorySize = loaded.historySize }
        options.historySize = historySize ?? fileHistorySize ?? options.historySize
        options.maxLineBytes = maxLineBytes
        options.maxConnections = maxConnections
        options.subscriberBufferBytes = subscriberBufferBytes
        options.subscriberLagTimeout = .milliseconds(Int64((subscriberLagTimeout * 1_000).rounded()))
        options.resumeEvents = resumeEvents
        options.allowRoot = !denyRoot
        return options
    }

    /// Where the store lives; nil with `--ephemeral`. With no flag and no
    /// default (HOME, XDG_STATE_HOME and XDG_RUNTIME_DIR all unset), toastd
    /// refuses to guess a shared path: a usage error that says what to set.
    public func stateDirectory(environment: [String: String]) throws -> String? {
        if ephemeral { return nil }
        if let stateDir { return stateDir }
        guard let resolved = StateLocation.resolve(environment: environment) else {
            printError(
                "toastd: no state directory: HOME, XDG_STATE_HOME and XDG_RUNTIME_DIR are all unset; "
                    + "give --state-dir DIR (a directory of your own), or --ephemeral to keep nothing"
            )
            throw ExitCode(2)
        }
        return resolved
    }

    /// `--check-config`: every error with its line and column, exit 1; or exit 0.
    /// `--check-config` with no FILE, as `preprocess` writes it: a control character, so never a path.
    static let defaultConfigFile = "\u{1}default"

    func check(_ file: String, environment: [String: String]) throws {
        let file = file == Self.defaultConfigFile ? "" : file
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
}

/// `--freedesktop` alone means `--freedesktop=own`; `--check-config` takes
/// an optional FILE (alone, it checks the default file or --config's).
public func preprocess(_ arguments: [String]) -> [String] {
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
                // ArgumentParser reads an empty value as a missing one: a word no path can be.
                result.append("--check-config=" + Toastd.defaultConfigFile)
            }
        default:
            result.append(argument)
        }
    }
    return result
}

