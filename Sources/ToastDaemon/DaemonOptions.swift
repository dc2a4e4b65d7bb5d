// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// Everything toastd can be told, and the one home of its defaults and
/// limits: each property's initial value is its default, and `Limits` holds
/// the range each number must lie in. toastd's flags read both (their help
/// quotes the defaults, their validation the limits); nothing below clamps.
/// The scheduler's own defaults are `SchedulerConfiguration()`'s, and the
/// bounds the configuration file shares with the flags are `ConfigurationLimits`'.
public struct DaemonOptions: Sendable {
    public var socketPath: String
    /// The longest request line accepted, in bytes (newline excluded).
    public var maxLineBytes = ProtocolInfo.defaultMaxLineBytes
    public var scheduler = SchedulerConfiguration()
    /// Connections served at once; one more is refused with `busy`.
    public var maxConnections = 256
    /// Unwritten bytes a subscriber may hold before it falls behind.
    public var subscriberBufferBytes = 1 << 20
    /// How long a subscriber may go without progress before it is disconnected.
    public var subscriberLagTimeout: Duration = .seconds(10)
    /// Recent events kept for subscribers that resume with `since` (0: none).
    public var resumeEvents = ProtocolInfo.defaultResumeEvents
    /// Ended toasts kept for `history`.
    public var historySize = ProtocolInfo.defaultHistorySize
    /// Where the state lives (see `ToastStore`).
    public var storage = DaemonStorage.ephemeral
    /// Companions in toastd's process, such as the freedesktop bridge: each
    /// made into a service that starts once the socket accepts (before
    /// READY=1) and stops before it closes. It sends its commands through
    /// the `InProcessClient` and reports its state in `status` through the
    /// `StatusBoard`.
    public var companions: [@Sendable (StatusBoard, InProcessClient) -> any DaemonService] = []
    /// SIGTERM and SIGINT stop toastd and SIGHUP reloads it. Off for a
    /// toastd inside another program (the tests' in-process daemon): the
    /// handlers ignore the signals' default action process-wide, which
    /// every child that program starts afterwards would inherit.
    public var handlesSignals = true
    /// Accept connections from root as well as from our own uid.
    public var allowRoot = true
    /// A listening socket inherited from the service manager (socket
    /// activation). toastd serves it instead of binding `socketPath`, and
    /// leaves the socket file alone at exit: systemd owns it.
    public var inheritedSocket: Int32?
    /// What toastd tells its service manager.
    public var serviceManager = ServiceManagerHooks()
    /// The configuration file and the flags over it; `nil`: none is read.
    public var configuration: ConfigurationSource?
    /// What reading it at start gave (read before the store opens: the
    /// history size it sets is needed to open the store).
    public var initialConfiguration = ConfigurationSource.Outcome.defaults

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Every default, for help texts and tests.
    public static let defaults = DaemonOptions(socketPath: "")

    /// The range each number must lie in.
    public enum Limits {
        public static let maxVisible = ConfigurationLimits.maxVisible
        public static let maxToasts = ConfigurationLimits.maxToasts
        public static let historySize = ConfigurationLimits.historySize
        public static let resumeEvents = ConfigurationLimits.resumeEvents
        /// Below a few hundred bytes no toast with a title fits.
        public static let maxLineBytes = 256...(16 << 20)
        public static let maxConnections = 1...65_536
        /// At least one page: a subscriber must hold one event line.
        public static let subscriberBufferBytes = 4_096...(1 << 30)
        public static let subscriberLagTimeoutSeconds = 0.1...3_600.0
    }
}
