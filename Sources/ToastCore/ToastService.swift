// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// The protocol's face of the scheduler: a request line (or envelope) in,
/// the reply line and the scheduler's effects out. The daemon wraps it in
/// sockets; the transcript tests and the fuzzer drive it directly.
///
/// It also knows where each event goes (`EventRouter`) and keeps the
/// recent events for subscribers that resume (`EventBacklog`): `publish`
/// encodes each event once and says which connections receive it, and
/// `subscribe` answers a subscription with its snapshot or its replay.
///
/// Connection-level operations (`subscribe`, `status`, the source binding
/// of `hello`) need the daemon's state, so they come back as a `directive`
/// for the caller to carry out.
public struct ToastService: Sendable {
    public private(set) var scheduler: SchedulerStateMachine
    public private(set) var router = EventRouter()
    public private(set) var backlog: EventBacklog
    /// The toasts that ended, for `history` and `restore`.
    public private(set) var history: ToastHistory
    /// Names this daemon's space of ids and sequence numbers (see `hello`).
    public let instance: String
    /// Each open connection's default source, and the source it bound.
    private var peers: [EventRouter.ConnectionID: Peer] = [:]
    /// The configuration's role defaults and rules, applied to every add.
    public var rules = ToastRules()
    /// Commands rules asked to run, waiting for their toast's presentation.
    private var pendingRuns: [ToastID: [[String]]] = [:]
    /// Commands due now, for the daemon to take (`takeRuns`) after a step.
    public private(set) var runs: [RuleRun] = []
    /// The connections that hold do not disturb (`inhibit`), and why.
    public private(set) var inhibitors: [EventRouter.ConnectionID: String] = [:]
    /// The modes the configuration declares (`modes = [...]`); a mode
    /// request naming another is refused. nil: none declared, any name goes.
    public var declaredModes: [String]?

    /// A command a rule's `exec` runs, and the toast it runs for.
    public struct RuleRun: Sendable, Hashable {
        public var argv: [String]
        public var record: ToastRecord

        public init(argv: [String], record: ToastRecord) {
            self.argv = argv
            self.record = record
        }
    }

    struct Peer: Sendable {
        var source: String?
        var bound: String?
    }

    public init(
        configuration: SchedulerConfiguration = SchedulerConfiguration(),
        instance: String = "local",
        resumeEvents: Int = ProtocolInfo.defaultResumeEvents,
        history: ToastHistory = ToastHistory(capacity: ProtocolInfo.defaultHistorySize)
    ) {
        scheduler = SchedulerStateMachine(configuration: configuration)
        backlog = EventBacklog(capacity: resumeEvents)
        self.history = history
        self.instance = instance
    }

    /// A service that carries on from saved state (durable toastd).
    public init(
        restoring state: SchedulerStateMachine.State, configuration: SchedulerConfiguration = SchedulerConfiguration(),
        instance: String, resumeEvents: Int = ProtocolInfo.defaultResumeEvents, history: ToastHistory
    ) {
        self.init(configuration: configuration, instance: instance, resumeEvents: resumeEvents, history: history)
        scheduler = SchedulerStateMachine(configuration: configuration, restoring: state)
    }

    /// A service that carries on with a scheduler already restored (a
    /// store's, `ToastStore.Loaded`), under `configuration`.
    public init(
        restored scheduler: SchedulerStateMachine, configuration: SchedulerConfiguration, instance: String,
        resumeEvents: Int = ProtocolInfo.defaultResumeEvents, history: ToastHistory
    ) {
        self.init(configuration: configuration, instance: instance, resumeEvents: resumeEvents, history: history)
        self.scheduler = scheduler
        // Restoring reads no configuration: the one this run starts with applies from here.
        self.scheduler.configuration = configuration
    }

    public struct Response: Sendable {
        /// The reply to send back, or `nil` when `directive` asks the caller
        /// to build it (subscribe, status).
        public var reply: JSONValue? {
            switch stored {
            case .none: nil
            case .value(let value): value
            case .refusal(let ref, let error): WireEncoder.failure(ref: ref, error: error)
            case .scheduler(let ref, let result): WireEncoder.reply(ref: ref, result.map(WireEncoder.result))
            case .snapshot(let ref, let snapshot, let instance, let next):
                WireEncoder.ok(ref: ref, result: WireEncoder.snapshot(snapshot, instance: instance, next: next))
            }
        }
        /// The reply's line, newline included; the scheduler's replies are
        /// written straight to bytes (`WireEncoder.replyLine`).
        public var replyLine: [UInt8]? {
            switch stored {
            case .none: nil
            case .value(let value): WireEncoder.line(value)
            case .scheduler(let ref, .success(let result)): WireEncoder.replyLine(ref: ref, result)
            case .scheduler(let ref, .failure(let error)), .refusal(let ref, let error): WireEncoder.failureLine(ref: ref, error: error)
            case .snapshot(let ref, let snapshot, let instance, let next):
                WireEncoder.snapshotReplyLine(ref: ref, snapshot, instance: instance, next: next)
            }
        }
        /// Whether the scheduler carried out the command: the reply is
        /// then the scheduler's answer, with no directive, and `replyLine`
        /// may be encoded later, off the event loop.
        public var isSchedulerSuccess: Bool {
            if case .scheduler(_, .success) = stored { return true }
            return false
        }
        /// What the scheduler answered, when the request was a command it carried out.
        public var schedulerReply: SchedulerReply? {
            if case .scheduler(_, .success(let result)) = stored { return result }
            return nil
        }
        /// The scheduler's answer or refusal, when the request was a command
        /// (for in-process clients, which take it as a value, not a line).
        public var schedulerResult: Result<SchedulerReply, ToastError>? {
            if case .scheduler(_, let result) = stored { return result }
            return nil
        }
        public var effects: [SchedulerEffect]
        public var directive: Directive?
        /// How the request changed the history besides new ends (for durable state).
        public var historyChange: HistoryChange?
        /// The request's `ref`, for the caller's reply to a directive.
        public var ref: JSONValue?

        enum Stored: Sendable {
            case none
            case value(JSONValue)
            /// A request refused before it reached the scheduler (it did
            /// not decode, or its version or target was wrong).
            case refusal(ref: JSONValue?, ToastError)
            case scheduler(ref: JSONValue?, Result<SchedulerReply, ToastError>)
            /// `list`'s reply: the state, written straight to bytes.
            case snapshot(ref: JSONValue?, SchedulerSnapshot, instance: String, next: Int?)
        }

        var stored: Stored

        init(reply: JSONValue?, effects: [SchedulerEffect], directive: Directive? = nil, ref: JSONValue? = nil) {
            stored = reply.map(Stored.value) ?? .none
            self.effects = effects
            self.directive = directive
            self.ref = ref
        }

        init(ref: JSONValue?, refusal: ToastError) {
            stored = .refusal(ref: ref, refusal)
            effects = []
        }

        init(ref: JSONValue?, result: Result<SchedulerReply, ToastError>, effects: [SchedulerEffect]) {
            stored = .scheduler(ref: ref, result)
            self.effects = effects
        }

        init(ref: JSONValue?, snapshot: SchedulerSnapshot, instance: String, next: Int? = nil) {
            stored = .snapshot(ref: ref, snapshot, instance: instance, next: next)
            effects = []
        }

        public var events: [ToastEvent] {
            effects.compactMap { effect in
                if case .publish(let event) = effect { return event }
                return nil
            }
        }
    }

    public enum HistoryChange: Sendable, Hashable {
        /// `restore` took this toast's entry out.
        case removed(ToastID)
        /// `clearHistory`.
        case cleared
    }

    public enum Directive: Sendable, Hashable {
        /// A successful handshake; the caller records the connection's source.
        case hello(Request.Hello)
        /// The caller answers with `subscribe(_:_:ref:now:)`.
        case subscribe(Request.Subscribe)
        case status
        /// The caller loads its configuration again and answers with the result.
        case reload
    }

    /// Answers one request line that came on `connection` (see `connect`):
    /// its toasts get the connection's source, a `hello` may change or bind
    /// that source, and an add or update makes the connection hear how the
    /// toast ends (section 6.3 of PROTOCOL.md).
    public mutating func respond<Bytes: Collection<UInt8>>(
        toLine line: Bytes, from connection: EventRouter.ConnectionID, now: ToastInstant
    ) -> Response {
        let response = respond(toLine: line, defaultSource: peers[connection]?.source, now: now, connection: connection)
        if case .hello(let hello)? = response.directive, peers[connection] != nil {
            if let source = hello.source { peers[connection]!.source = source }
            peers[connection]!.bound = hello.bindSource ? hello.source : nil
        }
        return response
    }

    /// Answers one request line that belongs to no connection (the fuzzer,
    /// the benchmarks): toasts without a source get `defaultSource`.
    public mutating func respond<Bytes: Collection<UInt8>>(
        toLine line: Bytes, defaultSource: String?, now: ToastInstant, connection: EventRouter.ConnectionID? = nil
    ) -> Response {
        respond(to: WireDecoder.decode(line: line), defaultSource: defaultSource, now: now, connection: connection, decodedHere: true)
    }

    /// Answers a line already decoded: its request, or the typed error it
    /// was refused with.
    public mutating func respond(
        to decoded: Result<RequestEnvelope, WireDecoder.Failure>, defaultSource: String?, now: ToastInstant,
        connection: EventRouter.ConnectionID? = nil
    ) -> Response {
        respond(to: decoded, defaultSource: defaultSource, now: now, connection: connection, decodedHere: false)
    }

    /// `decodedHere`: as below, for a request decoded from a line just now.
    private mutating func respond(
        to decoded: consuming Result<RequestEnvelope, WireDecoder.Failure>, defaultSource: String?, now: ToastInstant,
        connection: EventRouter.ConnectionID?, decodedHere: Bool
    ) -> Response {
        switch consume decoded {
        case .success(let envelope):
            return respond(to: envelope, defaultSource: defaultSource, now: now, connection: connection, decodedHere: decodedHere)
        case .failure(let failure):
            return Response(ref: failure.ref, refusal: failure.error)
        }
    }

    public mutating func respond(
        to envelope: RequestEnvelope, defaultSource: String?, now: ToastInstant,
        connection: EventRouter.ConnectionID? = nil
    ) -> Response {
        respond(to: envelope, defaultSource: defaultSource, now: now, connection: connection, decodedHere: false)
    }

    /// `decodedHere`: the envelope is the wire decoder's, made from a line
    /// just now, so its toast has passed `Toast.validate()` (the decoder
    /// checks it). The scheduler then checks it again only if something
    /// after the decoder set a field that validation checks: a default
    /// source, or a rule's or role's scene, icon or duration. Validating
    /// every add twice was 2% of the event loop in the ingest.
    private mutating func respond(
        to envelope: consuming RequestEnvelope, defaultSource: String?, now: ToastInstant,
        connection: EventRouter.ConnectionID?, decodedHere: Bool
    ) -> Response {
        let ref = envelope.ref
        let defaulted = envelope.defaulted
        // The request is moved out of the envelope, and an add's toast out
        // of its command, so that a toast decoded here has one reference
        // and the default source and the rules change it in place: a
        // shared toast is copied whole on its first change (an allocation
        // and a retain of every text), 3% of an add with a configuration.
        let request = (consume envelope).request
        switch consume request {
        case .command(var command):
            var outcome = ToastRules.Outcome()
            var validated = false
            if case .add(var toast) = command {
                command = .tick
                validated = decodedHere
                if toast.source == nil, let defaultSource {
                    toast.source = defaultSource
                    validated = validated && Toast.problem(source: defaultSource) == nil
                }
                if !rules.isEmpty {
                    outcome = rules.apply(to: &toast, unset: defaulted, modes: scheduler.modes)
                    validated = validated && !outcome.changedCheckedFields
                }
                command = outcome.drop ? .drop(toast) : .add(toast)
            }
            let transition = scheduler.handle(command, now: now, validated: validated)
            switch transition.reply {
            case .success(.added(let record, let deduped, _)):
                if let connection { noteAdder(connection, of: record.id) }
                if !outcome.exec.isEmpty {
                    // A toast added again while shown is not presented again: its commands run now.
                    if deduped && record.state == .shown {
                        runs += outcome.exec.map { RuleRun(argv: $0, record: record) }
                    } else {
                        pendingRuns[record.id, default: []] += outcome.exec
                    }
                }
            case .success(.updated(let record)):
                if let connection { noteAdder(connection, of: record.id) }
            default:
                break
            }
            return Response(ref: ref, result: transition.reply, effects: transition.effects)
        case .togglePause(let level):
            let command: SchedulerCommand = scheduler.pausedLevel > 0 ? .resume : .pause(level: level)
            let transition = scheduler.handle(command, now: now)
            return Response(ref: ref, result: transition.reply, effects: transition.effects)
        case .mode(let change):
            if let refusal = modeRefusal(change) { return Response(ref: ref, refusal: refusal) }
            var modes = scheduler.modes
            switch change {
            case .list: break
            case .set(let names): modes = names
            case .add(let name): modes.append(name)
            case .remove(let name): modes.removeAll { $0 == name }
            case .toggle(let name):
                if modes.contains(name) { modes.removeAll { $0 == name } } else { modes.append(name) }
            }
            let transition = scheduler.handle(.setModes(modes), now: now)
            return Response(ref: ref, result: transition.reply, effects: transition.effects)
        case .inhibit(let reason):
            inhibitors[connection ?? 0] = reason ?? "inhibit"
            return inhibitionChanged(ref: ref, now: now)
        case .uninhibit:
            inhibitors[connection ?? 0] = nil
            return inhibitionChanged(ref: ref, now: now)
        case .reload:
            return Response(reply: nil, effects: [], directive: .reload, ref: ref)
        case .hello(let hello):
            guard hello.version == ProtocolInfo.version else {
                let error = ToastError(
                    .unsupportedVersion,
                    "this server speaks protocol version \(ProtocolInfo.version), not \(hello.version)",
                    field: "version"
                )
                return Response(ref: ref, refusal: error)
            }
            return Response(
                reply: WireEncoder.ok(ref: ref, result: WireEncoder.hello(instance: instance)), effects: [],
                directive: .hello(hello)
            )
        case .list(let filter, let page):
            // One page: the stacks whole, the toasts from `offset`, at most
            // `limit` of them; `next` when more follow.
            var snapshot = scheduler.snapshot(filter: filter)
            let total = snapshot.toasts.count
            let start = min(page.offset, total)
            let end = min(total, start + page.limit)
            snapshot.toasts = Array(snapshot.toasts[start..<end])
            return Response(ref: ref, snapshot: snapshot, instance: instance, next: end < total ? end : nil)
        case .subscribe(let subscribe):
            return Response(reply: nil, effects: [], directive: .subscribe(subscribe), ref: ref)
        case .status:
            return Response(reply: nil, effects: [], directive: .status, ref: ref)
        case .history(let query):
            let page = history.page(query)
            var result: JSONObject = ["entries": .array(page.entries.map(WireEncoder.historyEntry))]
            // The next page: the entries older than the last one here.
            if page.more, let last = page.entries.last { result["next"] = .int(Int64(last.seq)) }
            return Response(reply: WireEncoder.ok(ref: ref, result: .object(result)), effects: [])
        case .restore(let id):
            return restore(id, ref: ref, now: now, connection: connection)
        case .clearHistory(let id?):
            guard history.entry(id: id) != nil else {
                return Response(ref: ref, refusal: ToastError(.notFound, "no history entry has id \(id)", field: "id"))
            }
            history.remove(id: id)
            var response = Response(reply: WireEncoder.ok(ref: ref, result: ["cleared": 1]), effects: [])
            response.historyChange = .removed(id)
            return response
        case .clearHistory(nil):
            let cleared = history.clear()
            var response = Response(reply: WireEncoder.ok(ref: ref, result: ["cleared": .int(Int64(cleared))]), effects: [])
            response.historyChange = .cleared
            return response
        }
    }

    /// Why a mode change is refused: a `rule-off.NAME` switch for a rule no
    /// one named (whether or not modes are declared), or a mode the
    /// configuration does not declare (when it declares modes).
    private func modeRefusal(_ change: Request.ModeChange) -> ToastError? {
        let ruleNames = Set(rules.rules.compactMap(\.name))
        for mode in change.activating {
            if mode.hasPrefix(ToastRule.offPrefix) {
                let rule = String(mode.dropFirst(ToastRule.offPrefix.count))
                if !ruleNames.contains(rule) { return ToastError(.notFound, "no rule is named '\(rule)'", field: "mode") }
            } else if let declared = declaredModes, !declared.contains(mode) {
                let known = declared.isEmpty ? "none" : declared.joined(separator: ", ")
                return ToastError(.invalidField, "unknown mode '\(mode)'; the configuration declares: \(known)", field: "mode")
            }
        }
        return nil
    }

    /// The effective pause follows the inhibitors: held while any is.
    private mutating func inhibitionChanged(ref: JSONValue?, now: ToastInstant) -> Response {
        let level = inhibitors.isEmpty ? 0 : scheduler.configuration.pauseLevels.inhibitLevel
        let transition = scheduler.handle(.inhibit(level: level), now: now)
        let result: JSONValue = [
            "inhibitors": .int(Int64(inhibitors.count)), "paused": .bool(scheduler.isPaused),
            "level": .int(Int64(scheduler.pauseLevel)),
        ]
        return Response(reply: WireEncoder.ok(ref: ref, result: result), effects: transition.effects)
    }

    /// Takes the commands that rules asked to run (the daemon runs them).
    public mutating func takeRuns() -> [RuleRun] {
        defer { runs = [] }
        return runs
    }

    /// A reload: the new rules apply to the next add; the scheduler takes
    /// the new slots and levels at once. Live toasts stay.
    public mutating func reconfigure(_ configuration: SchedulerConfiguration, rules: ToastRules, now: ToastInstant)
        -> [SchedulerEffect]
    {
        self.rules = rules
        var effects = scheduler.reconfigure(configuration, now: now).effects
        if !inhibitors.isEmpty {
            effects += scheduler.handle(.inhibit(level: configuration.pauseLevels.inhibitLevel), now: now).effects
        }
        return effects
    }

    /// Adds a history entry again as a new toast. Its actions are dropped:
    /// whoever waited for them is gone (dunst #815). The entry leaves the
    /// history; the new toast comes back to it when it ends.
    private mutating func restore(
        _ id: ToastID?, ref: JSONValue?, now: ToastInstant, connection: EventRouter.ConnectionID?
    ) -> Response {
        guard let entry = history.entry(id: id) else {
            let error =
                id.map { ToastError(.notFound, "no history entry has id \($0)", field: "id") }
                ?? ToastError(.notFound, "the history is empty", field: "latest")
            return Response(ref: ref, refusal: error)
        }
        var toast = entry.record.toast
        toast.actions = []
        let transition = scheduler.handle(.add(toast), now: now)
        guard case .success(let reply) = transition.reply, case .added(let record, _, _) = reply,
            case .object(var result) = WireEncoder.result(reply)
        else {
            return Response(ref: ref, result: transition.reply, effects: transition.effects)
        }
        if let connection { noteAdder(connection, of: record.id) }
        history.remove(id: entry.record.id)
        result["restored"] = .int(Int64(entry.record.id))
        var response = Response(reply: WireEncoder.ok(ref: ref, result: .object(result)), effects: transition.effects)
        response.historyChange = .removed(entry.record.id)
        return response
    }

    // MARK: - Connections and events

    /// A toast the connection added is live: it hears that toast's end.
    private mutating func noteAdder(_ connection: EventRouter.ConnectionID, of toast: ToastID) {
        // The state alone: reading the record would unpack a queued one
        // (an eighth of `respond` in the ingest profile).
        if scheduler.state(of: toast) != nil { router.noteAdder(connection, of: toast) }
    }

    /// A connection opened; `source` is the default source of its toasts
    /// (the daemon passes the peer's `name[pid]`).
    public mutating func connect(_ connection: EventRouter.ConnectionID, source: String?) {
        router.connect(connection)
        peers[connection] = Peer(source: source)
    }

    /// A connection closed: it receives nothing more, and the source it
    /// bound with `hello` ends (section 5.4). Returns that end's effects.
    public mutating func disconnect(_ connection: EventRouter.ConnectionID, now: ToastInstant) -> [SchedulerEffect] {
        router.disconnect(connection)
        var effects: [SchedulerEffect] = []
        if inhibitors.removeValue(forKey: connection) != nil, inhibitors.isEmpty {
            effects += scheduler.handle(.inhibit(level: 0), now: now).effects
        }
        guard let source = peers.removeValue(forKey: connection)?.bound else { return effects }
        return effects + scheduler.handle(.endSource(source), now: now).effects
    }

    /// The source a connection bound with `hello`, if any.
    public func boundSource(of connection: EventRouter.ConnectionID) -> String? { peers[connection]?.bound }

    /// The sources bound to open connections now.
    public var boundSources: [String] { peers.values.compactMap(\.bound).sorted() }

    /// One event, encoded once, and the connections that receive it.
    public struct Publication: Sendable {
        public var event: ToastEvent
        public var deliveries: [EventRouter.Delivery]
        /// The line, when `publish` encoded it: for a subscriber's delivery.
        public let encodedLine: [UInt8]?
        /// The packed bytes the scheduler holds for the toast the event
        /// wrote, when it waits (`SchedulerStateMachine.packedWaiting(after:)`):
        /// what the store writes for it. Looked up here, beside the
        /// scheduler: from another module, `scheduler`'s getter copies it
        /// whole (a retain of each of its tables).
        package let waiting: PackedRecord?

        /// The event's line, newline included: the same bytes for everyone,
        /// encoded once by `publish` when a subscriber is sent it (else here,
        /// or by the caller when it likes: an adder's own events can wait
        /// for the step's commit, as its reply does).
        public var line: [UInt8] { encodedLine ?? WireEncoder.eventLine(event) }
    }

    /// Keeps the events among `effects` for resuming subscribers, routes
    /// each one, and encodes those that go to a subscriber (once each).
    public mutating func publish(_ effects: [SchedulerEffect]) -> [Publication] {
        var publications: [Publication] = []
        publications.reserveCapacity(effects.count)
        for case .publish(let event) in effects {
            let deliveries = router.route(event)
            let line = deliveries.contains(where: \.asSubscriber) ? WireEncoder.eventLine(event) : nil
            backlog.append(event, line: line)
            if let ended = ToastHistory.Entry(event) { history.append(ended) }
            if !pendingRuns.isEmpty, let record = event.record {
                if case .presented = event.kind, let argvs = pendingRuns.removeValue(forKey: record.id) {
                    runs += argvs.map { RuleRun(argv: $0, record: record) }
                } else if event.isEnd {
                    pendingRuns[record.id] = nil
                }
            }
            publications.append(
                Publication(event: event, deliveries: deliveries, encodedLine: line, waiting: scheduler.packedWaiting(after: event))
            )
        }
        return publications
    }

    /// Makes `connection` a subscriber and returns the lines it gets at once,
    /// in order: the reply, then either a snapshot or the events it missed
    /// since `request.since` (section 6.4 of PROTOCOL.md).
    public mutating func subscribe(
        _ connection: EventRouter.ConnectionID, _ request: Request.Subscribe, ref: JSONValue?, now: ToastInstant
    ) -> [[UInt8]] {
        router.subscribe(connection, filter: request.filter)
        var result: JSONObject = ["subscribed": true, "instance": .string(instance)]
        var replay: [EventBacklog.Entry]?
        if let since = request.since {
            if request.instance == nil || request.instance == instance {
                replay = backlog.events(after: since, lastSequence: scheduler.lastSequence, matching: request.filter)
            }
            result["resync"] = .bool(replay == nil)
        }
        var lines = [WireEncoder.line(WireEncoder.ok(ref: ref, result: .object(result)))]
        if let replay {
            lines += replay.map(\.line)
        } else if request.snapshot || request.since != nil {
            lines.append(snapshotLine(filter: request.filter, now: now))
        }
        return lines
    }

    /// The `snapshot` event for a subscriber with this filter.
    public func snapshotLine(filter: EventFilter, now: ToastInstant) -> [UInt8] {
        WireEncoder.snapshotEventLine(scheduler.snapshot(filter: filter), instance: instance, time: now)
    }

    /// Lets time pass: expires what is due at `now`.
    public mutating func tick(now: ToastInstant) -> [SchedulerEffect] {
        scheduler.handle(.tick, now: now).effects
    }

    /// Moves a virtual clock forward to `time`, firing each timer at the
    /// very instant it was armed for, in order: what a perfectly punctual
    /// event loop would do. Tests, transcripts and the fuzzer use it.
    public mutating func advance(to time: ToastInstant) -> [SchedulerEffect] {
        var effects: [SchedulerEffect] = []
        while let deadline = scheduler.armedDeadline, deadline <= time {
            effects += tick(now: deadline)
        }
        return effects
    }
}
