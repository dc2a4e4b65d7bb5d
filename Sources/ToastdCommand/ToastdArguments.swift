// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastConfig
import ToastCore
import ToastDaemon
import ToastStore

/// What toastd's flags say, as plain values, whichever reader read them
/// (`Toastd`, ArgumentParser's; or `init?(quick:)`): their checks against
/// `DaemonOptions.Limits`, and their mapping (over the configuration file)
/// onto `DaemonOptions`.
public struct ToastdArguments: Equatable, Sendable {
    public enum FreedesktopMode: String, CaseIterable, Sendable {
        case own, replace
    }

    public enum LogTarget: String, CaseIterable, Sendable {
        case auto, journal, stderr
    }

    var socket: String?
    var config: String?
    var checkConfig: String?
    var maxVisibleTop: Int?
    var maxVisibleCenter: Int?
    var maxVisibleBottom: Int?
    var maxToasts: Int?
    var maxToastsPerSource: Int?
    var maxLineBytes = DaemonOptions.defaults.maxLineBytes
    var maxConnections = DaemonOptions.defaults.maxConnections
    var subscriberBufferBytes = DaemonOptions.defaults.subscriberBufferBytes
    var subscriberLagTimeout = Double(DaemonOptions.defaults.subscriberLagTimeout.components.seconds)
    var resumeEvents = DaemonOptions.defaults.resumeEvents
    var stateDir: String?
    var ephemeral = false
    var freedesktop: FreedesktopMode?
    var historySize: Int?
    var denyRoot = false
    var logLevel = "info"
    var logTarget = LogTarget.auto

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

    /// `--check-config` with no FILE, as `preprocess` writes it: a control character, so never a path.
    static let defaultConfigFile = "\u{1}default"

    /// `--check-config`: every error with its line and column, exit 1; or exit 0.
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
