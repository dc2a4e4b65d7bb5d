// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastCore
import ToastDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `toastd`'s flags as ArgumentParser reads them: the help, the usage
/// errors and every unusual command line. What they mean is
/// `ToastdArguments`'; a plain command line skips this reader altogether
/// (`ToastdArguments(quick:)`).
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

    /// Runs toastd: a plain command line (the systemd unit's, a script's
    /// `--socket … --state-dir …`) without ArgumentParser, anything else
    /// through it. Exit statuses as `CommandLineTool`'s.
    public static func main(arguments: [String]) -> Never {
        if let quick = ToastdArguments(quick: arguments) {
            do {
                try quick.run()
                Glibc.exit(0)
            } catch {
                CommandLineTool.exit(Toastd.self, for: error)
            }
        }
        CommandLineTool.main(Toastd.self, arguments: preprocess(arguments))
    }

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
    var subscriberLagTimeout = ToastdArguments().subscriberLagTimeout
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
    var freedesktop: ToastdArguments.FreedesktopMode?
    @Option(help: "Ended toasts kept for 'toastctl history' and 'restore' (default \(Self.defaults.historySize)).")
    var historySize: Int?
    @Flag(help: "Refuse connections from root too (by default root may connect).") var denyRoot = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = ToastdArguments().logLevel
    @Option(help: "Where logs go: auto (the journal when stderr is connected to it), journal, or stderr.")
    var logTarget = ToastdArguments().logTarget

    private static let defaults = DaemonOptions.defaults

    /// What the flags say, as plain values.
    public var arguments: ToastdArguments {
        ToastdArguments(
            socket: socket, config: config, checkConfig: checkConfig, maxVisibleTop: maxVisibleTop,
            maxVisibleCenter: maxVisibleCenter, maxVisibleBottom: maxVisibleBottom, maxToasts: maxToasts,
            maxToastsPerSource: maxToastsPerSource, maxLineBytes: maxLineBytes, maxConnections: maxConnections,
            subscriberBufferBytes: subscriberBufferBytes, subscriberLagTimeout: subscriberLagTimeout,
            resumeEvents: resumeEvents, stateDir: stateDir, ephemeral: ephemeral, freedesktop: freedesktop,
            historySize: historySize, denyRoot: denyRoot, logLevel: logLevel, logTarget: logTarget
        )
    }

    public func validate() throws { try arguments.validate() }

    public func run() throws { try arguments.run() }
}

extension ToastdArguments.FreedesktopMode: ExpressibleByArgument {}
extension ToastdArguments.LogTarget: ExpressibleByArgument {}

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
                result.append("--check-config=" + ToastdArguments.defaultConfigFile)
            }
        default:
            result.append(argument)
        }
    }
    return result
}

