/// One decoded request line.
public struct RequestEnvelope: Sendable, Hashable {
    /// The client's correlation value, echoed in the reply (any JSON value).
    public var ref: JSONValue?
    public var request: Request

    public init(ref: JSONValue? = nil, request: Request) {
        self.ref = ref
        self.request = request
    }
}

/// Every operation of protocol version 1.
public enum Request: Sendable, Hashable {
    /// Operations the scheduler carries out (add, update, remove, dismiss,
    /// invoke, clear, pause, resume, endSource).
    case command(SchedulerCommand)
    /// The version handshake; optionally names this connection's source.
    case hello(Hello)
    /// The current state, optionally filtered.
    case list(EventFilter)
    /// Turn this connection into a subscriber: a snapshot, then live events.
    case subscribe(EventFilter, snapshot: Bool)
    /// Counters of the daemon.
    case status

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

    /// The op names, as spelled on the wire.
    public static let operations = [
        "hello", "add", "update", "remove", "dismiss", "invoke", "clear", "list",
        "pause", "resume", "endSource", "subscribe", "status",
    ]
}

/// Facts about this implementation of the protocol.
public enum ProtocolInfo {
    public static let version = 1
    public static let server = "toastd/0.1.0"
    /// What this server supports, for clients to check before they rely on it.
    public static let capabilities = [
        "actions", "clear", "dedupe", "endSource", "invalidation", "cancellation", "list",
        "pause", "progress", "scenes", "status", "subscribe", "update", "wait",
    ]
    /// The longest request line accepted by default, in bytes (newline excluded).
    public static let defaultMaxLineBytes = 65_536
}
