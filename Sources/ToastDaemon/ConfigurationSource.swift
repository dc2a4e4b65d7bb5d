// SPDX-License-Identifier: Apache-2.0
import ToastConfig
import ToastCore

/// Where toastd's configuration comes from: the file (`--config`, else
/// `$XDG_CONFIG_HOME/toastd/config.toml`), and the flags that win over it.
/// Read at start and again at each reload (SIGHUP or `toastctl reload`).
public struct ConfigurationSource: Sendable {
    /// The file; `nil` when there is none to read (no HOME).
    public var path: String?
    /// Named with `--config`: a missing file is an error, not the defaults.
    public var isExplicit: Bool
    public var overrides: SchedulerConfiguration.Overrides

    public init(path: String?, isExplicit: Bool, overrides: SchedulerConfiguration.Overrides = .init()) {
        self.path = path
        self.isExplicit = isExplicit
        self.overrides = overrides
    }

    /// What reading the file gave.
    public enum Outcome: Sendable {
        /// No file: the defaults (and the flags).
        case defaults
        case loaded(ToastdConfig)
        /// The file was refused; what is in force stays (the defaults at start).
        case refused(ToastdConfig.Invalid)
    }

    public func load() -> Outcome {
        guard let path else { return .defaults }
        if !isExplicit && !ToastdConfig.exists(path) { return .defaults }
        switch ToastdConfig.load(path: path) {
        case .success(let config): return .loaded(config)
        case .failure(let invalid): return .refused(invalid)
        }
    }

    /// The configuration in force once `outcome` is applied; `nil` for a refused file.
    public func resolve(_ outcome: Outcome) -> Resolved? {
        switch outcome {
        case .defaults: Resolved(config: ToastdConfig(), scheduler: ToastdConfig().scheduler(overriding: overrides))
        case .loaded(let config): Resolved(config: config, scheduler: config.scheduler(overriding: overrides))
        case .refused: nil
        }
    }

    public struct Resolved: Sendable {
        public var config: ToastdConfig
        public var scheduler: SchedulerConfiguration
    }
}
