// SPDX-License-Identifier: Apache-2.0
/// One decoded request line.
public struct RequestEnvelope: Sendable, Hashable {
    /// The client's correlation value, echoed in the reply (any JSON value).
    public var ref: JSONValue?
    public var request: Request
    /// For `add`: the toast fields the sender left out, which its role's
    /// configured defaults may fill.
    public var defaulted: ToastFieldSet

    public init(ref: JSONValue? = nil, request: Request, defaulted: ToastFieldSet = []) {
        self.ref = ref
        self.request = request
        self.defaulted = defaulted
    }
}

/// Every operation of protocol version 1.
public enum Request: Sendable, Hashable {
    /// Operations the scheduler carries out (add, update, remove, dismiss,
    /// invoke, clear, pause, resume, endSource).
    case command(SchedulerCommand)
    /// The version handshake; optionally names this connection's source.
    case hello(Hello)
    /// The current state, optionally filtered, a page at a time (`ListPage`).
    case list(EventFilter, page: ListPage = ListPage())
    /// Turn this connection into a subscriber: a snapshot (or the events it
    /// missed), then live events.
    case subscribe(Subscribe)
    /// Counters of the daemon.
    case status
    /// The toasts that ended, newest first.
    case history(ToastHistory.Query)
    /// Adds a history entry again as a new toast: the entry of this id, or
    /// (nil) the newest one.
    case restore(ToastID?)
    /// Forgets the history, or (with an id) that toast's entry.
    case clearHistory(ToastID? = nil)
    /// `pause` with `toggle`: resume if paused, else pause at this level.
    case togglePause(level: Int?)
    /// Lists or changes the active modes.
    case mode(ModeChange)
    /// Holds do not disturb until `uninhibit` or until this connection closes.
    case inhibit(reason: String?)
    case uninhibit
    /// Loads the configuration file again; the reply is its validation.
    case reload

    public enum ModeChange: Sendable, Hashable {
        case list
        case set([String])
        case add(String)
        case remove(String)
        case toggle(String)
    }

    public struct Hello: Sendable, Hashable {
        public var version: Int
        public var client: String?
        /// The source of the toasts this connection adds that name none.
        public var source: String?
        /// End `source` when this connection closes.
        public var bindSource: Bool

        public init(version: Int, client: String? = nil, source: String? = nil, bindSource: Bool = false) {
            self.version = version
            self.client = client
            self.source = source
            self.bindSource = bindSource
        }
    }

    public struct Subscribe: Sendable, Hashable {
        public var filter: EventFilter
        /// Send a snapshot first (when not resuming).
        public var snapshot: Bool
        /// Resume after this sequence number: replay what followed it.
        public var since: UInt64?
        /// The instance `since` belongs to; another instance means a resync.
        public var instance: String?

        public init(filter: EventFilter = EventFilter(), snapshot: Bool = true, since: UInt64? = nil, instance: String? = nil) {
            self.filter = filter
            self.snapshot = snapshot
            self.since = since
            self.instance = instance
        }
    }

    /// The op names, as spelled on the wire.
    public static let operations = [
        "hello", "add", "update", "remove", "dismiss", "invoke", "clear", "list",
        "pause", "resume", "endSource", "subscribe", "status", "history", "restore", "clearHistory",
        "mode", "inhibit", "uninhibit", "reload",
    ]
}

/// Facts about this implementation of the protocol.
public enum ProtocolInfo {
    /// The major version: what a client sends in `hello`. Minor revisions
    /// only add (members, ops, values), so a 1.0 client works with 1.1.
    public static let version = 1
    /// The full version, reported by `hello` as `version`.
    public static let revision = "1.4"
    /// The version of toastd and its tools (`--version`).
    public static let toolVersion = "0.1.0"
    public static let server = "toastd/\(toolVersion)"
    /// What this server supports, for clients to check before they rely on it.
    public static let capabilities = [
        "actions", "clear", "dedupe", "endSource", "invalidation", "cancellation", "history", "list",
        "inhibit", "levels", "modes", "pause", "progress", "reload", "resume", "rules", "scenes", "status",
        "subscribe", "update", "wait",
    ]
    /// How many ended toasts are kept for `history`, by default.
    public static let defaultHistorySize = 1_000
    /// How many published events are kept for `subscribe` with `since`, by default.
    public static let defaultResumeEvents = 10_000
    /// A fresh instance name (see `hello`): 64 random bits in hex.
    public static func newInstance() -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
    /// The longest request line accepted by default, in bytes (newline excluded).
    public static let defaultMaxLineBytes = 65_536
}

/// A page of `list` (PROTOCOL.md 5.3): the toasts from `offset` on, at most
/// `limit` of them. A reply holds at most `maxLimit` toasts, so that one
/// reply is bounded however many toasts live (100,000 made one line of
/// 33 MB); its `next` is the offset of the following page.
public struct ListPage: Sendable, Hashable {
    public static let maxLimit = 1_000
    public var offset: Int
    public var limit: Int

    public init(offset: Int = 0, limit: Int = ListPage.maxLimit) {
        self.offset = offset
        self.limit = limit
    }
}

extension Request.ModeChange {
    /// A named rule switched off is the mode `rule-off.NAME` (PROTOCOL.md 5.8).
    public static let ruleOffPrefix = "rule-off."

    /// The mode names the change would make active (none for `list` and `remove`).
    public var activating: [String] {
        switch self {
        case .list, .remove: []
        case .set(let names): names
        case .add(let name), .toggle(let name): [name]
        }
    }
}
