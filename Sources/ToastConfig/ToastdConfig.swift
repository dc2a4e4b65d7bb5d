// SPDX-License-Identifier: Apache-2.0
import ToastCore
import ToastSystem

/// toastd's configuration file, `$XDG_CONFIG_HOME/toastd/config.toml`:
/// role defaults, slots, limits, pause levels, modes, `exec` limits and the
/// rules. README.md has an example; every key is described there.
///
/// A file is read whole and checked whole: every problem is reported with
/// its line and column, and a file with any problem is refused as a whole,
/// so that a reload never applies half a file.
public struct ToastdConfig: Sendable {
    /// How toast-overlay draws (`[overlay]`); toastd only checks it.
    public var overlay = OverlayStyle()
    /// Shown slots per alignment; `nil` leaves the default (or the flag).
    public var maxVisible: [ToastAlignment: Int] = [:]
    public var maxToasts: Int?
    public var maxToastsPerSource: Int?
    /// Takes effect at start; a reload that changes it says so.
    public var historySize: Int?
    public var pauseLevels = PauseLevels()
    public var rules = ToastRules()
    /// The mode names rules and users may use; `nil` when the file does not
    /// declare them (then any name goes).
    public var modes: [String]?
    /// How long a rule's command may run before it is killed.
    public var execTimeout: Duration = .seconds(10)
    /// How many rule commands run at once; more wait their turn.
    public var execMaxRunning = 4

    public init() {}

    /// One problem, where it was written.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var message: String

        public var description: String { "\(line):\(column): \(message)" }
    }

    /// A refused file: every problem found in it.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var problems: [Problem]

        public var description: String { problems.map { "\(path):\($0)" }.joined(separator: "\n") }
    }

    /// The file toastd reads when `--config` names none.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") { return base + "/toastd/config.toml" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/toastd/config.toml" }
        return nil
    }

    /// Parses and checks a file's text.
    public static func parse(_ text: String, path: String = "config.toml") -> Result<ToastdConfig, Invalid> {
        let prescan = ConfigPrescan(text)
        guard prescan.problems.isEmpty else { return .failure(Invalid(path: path, problems: prescan.problems)) }
        let document: JSONValue
        switch ConfigDocument.parse(text) {
        case .success(let root): document = root
        case .failure(let error):
            return .failure(Invalid(path: path, problems: [Problem(line: error.line, column: error.column, message: error.message)]))
        }
        var reader = ConfigReader(locator: ConfigLocator(text))
        let config = reader.read(ConfigValue(json: document))
        guard reader.problems.isEmpty else {
            let sorted = reader.problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
            return .failure(Invalid(path: path, problems: sorted))
        }
        return .success(config)
    }

    /// The scheduler's configuration: the file over the defaults, and the
    /// daemon's flags (`overrides`) over the file.
    public func scheduler(overriding overrides: SchedulerConfiguration.Overrides) -> SchedulerConfiguration {
        let defaults = SchedulerConfiguration()
        var configuration = SchedulerConfiguration(
            maxVisibleTop: overrides.maxVisibleTop ?? maxVisible[.top] ?? defaults.maxVisibleTop,
            maxVisibleCenter: overrides.maxVisibleCenter ?? maxVisible[.center] ?? defaults.maxVisibleCenter,
            maxVisibleBottom: overrides.maxVisibleBottom ?? maxVisible[.bottom] ?? defaults.maxVisibleBottom,
            maxToasts: overrides.maxToasts ?? maxToasts ?? defaults.maxToasts,
            maxToastsPerSource: overrides.maxToastsPerSource ?? maxToastsPerSource ?? defaults.maxToastsPerSource
        )
        configuration.pauseLevels = pauseLevels
        return configuration
    }
}

extension SchedulerConfiguration {
    /// What toastd's flags set; each one given wins over the file.
    public struct Overrides: Sendable, Hashable {
        public var maxVisibleTop: Int?
        public var maxVisibleCenter: Int?
        public var maxVisibleBottom: Int?
        public var maxToasts: Int?
        public var maxToastsPerSource: Int?

        public init(
            maxVisibleTop: Int? = nil, maxVisibleCenter: Int? = nil, maxVisibleBottom: Int? = nil,
            maxToasts: Int? = nil, maxToastsPerSource: Int? = nil
        ) {
            self.maxVisibleTop = maxVisibleTop
            self.maxVisibleCenter = maxVisibleCenter
            self.maxVisibleBottom = maxVisibleBottom
            self.maxToasts = maxToasts
            self.maxToastsPerSource = maxToastsPerSource
        }
    }
}

/// A TOML value as the wire's JSON values (`ConfigDocument`), so that
/// durations and names are read by ToastCore's own decoders: one place
/// knows what a duration is.
struct ConfigValue {
    var json: JSONValue

    init(json: JSONValue) { self.json = json }
}

#if canImport(Glibc)
import Glibc
#endif

extension ToastdConfig {
    /// Reads and checks the file at `path`.
    public static func load(path: String) -> Result<ToastdConfig, Invalid> {
        // Without blocking: a FIFO put in the file's place cannot hang the reader.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            return .failure(Invalid(path: path, problems: [Problem(line: 1, column: 1, message: "cannot read the file: \(reason)")]))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return .failure(Invalid(path: path, problems: [Problem(line: 1, column: 1, message: "cannot read the file: not a regular file")]))
        }
        let bytes = ProcFile.bytes(of: fd, limit: maxFileBytes)
        if bytes.count > maxFileBytes {
            return .failure(Invalid(path: path, problems: [Problem(line: 1, column: 1, message: "the file is over \(maxFileBytes) bytes")]))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(Invalid(path: path, problems: [Problem(line: 1, column: 1, message: "the file is not UTF-8")]))
        }
        return parse(text, path: path)
    }

    /// A configuration is small; a file larger than this is a mistake.
    public static let maxFileBytes = 1 << 20

    /// Whether a file exists at `path` (a missing default file means the defaults).
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
