/// The protocol's face of the scheduler: a request line (or envelope) in,
/// the reply line and the scheduler's effects out. The daemon wraps it in
/// sockets; the transcript tests and the fuzzer drive it directly.
///
/// Connection-level operations (`subscribe`, `status`, the source binding
/// of `hello`) need the daemon's state, so they come back as a `directive`
/// for the caller to carry out.
public struct ToastService: Sendable {
    public private(set) var scheduler: SchedulerStateMachine

    public init(configuration: SchedulerConfiguration = SchedulerConfiguration()) {
        scheduler = SchedulerStateMachine(configuration: configuration)
    }

    public struct Response: Sendable {
        /// The reply to send back, or `nil` when `directive` asks the caller
        /// to build it (subscribe, status).
        public var reply: JSONValue? {
            switch stored {
            case .none: nil
            case .value(let value): value
            case .scheduler(let ref, let result): WireEncoder.reply(ref: ref, result.map(WireEncoder.result))
            }
        }
        /// The reply's line, newline included; the scheduler's replies are
        /// written straight to bytes (`WireEncoder.replyLine`).
        public var replyLine: [UInt8]? {
            switch stored {
            case .none: nil
            case .value(let value): WireEncoder.line(value)
            case .scheduler(let ref, .success(let result)): WireEncoder.replyLine(ref: ref, result)
            case .scheduler(let ref, .failure(let error)): WireEncoder.line(WireEncoder.failure(ref: ref, error: error))
            }
        }
        /// What the scheduler answered, when the request was a command it carried out.
        public var schedulerReply: SchedulerReply? {
            if case .scheduler(_, .success(let result)) = stored { return result }
            return nil
        }
        public var effects: [SchedulerEffect]
        public var directive: Directive?
        /// The request's `ref`, for the caller's reply to a directive.
        public var ref: JSONValue?

        enum Stored: Sendable {
            case none
            case value(JSONValue)
            case scheduler(ref: JSONValue?, Result<SchedulerReply, ToastError>)
        }

        var stored: Stored

        init(reply: JSONValue?, effects: [SchedulerEffect], directive: Directive? = nil, ref: JSONValue? = nil) {
            stored = reply.map(Stored.value) ?? .none
            self.effects = effects
            self.directive = directive
            self.ref = ref
        }

        init(ref: JSONValue?, result: Result<SchedulerReply, ToastError>, effects: [SchedulerEffect]) {
            stored = .scheduler(ref: ref, result)
            self.effects = effects
        }

        public var events: [ToastEvent] {
            effects.compactMap { effect in
                if case .publish(let event) = effect { return event }
                return nil
            }
        }
    }

    public enum Directive: Sendable, Hashable {
        /// A successful handshake; the caller records the connection's source.
        case hello(Request.Hello)
        case subscribe(EventFilter, snapshot: Bool)
        case status
    }

    public mutating func respond<Bytes: Collection<UInt8>>(
        toLine line: Bytes, defaultSource: String?, now: ToastInstant
    ) -> Response {
        switch WireDecoder.decode(line: line) {
        case .success(let envelope):
            return respond(to: envelope, defaultSource: defaultSource, now: now)
        case .failure(let failure):
            return Response(reply: WireEncoder.failure(ref: failure.ref, error: failure.error), effects: [])
        }
    }

    public mutating func respond(
        to envelope: RequestEnvelope, defaultSource: String?, now: ToastInstant
    ) -> Response {
        let ref = envelope.ref
        switch envelope.request {
        case .command(var command):
            if case .add(var toast) = command, toast.source == nil, let defaultSource {
                toast.source = defaultSource
                command = .add(toast)
            }
            let transition = scheduler.handle(command, now: now)
            return Response(ref: ref, result: transition.reply, effects: transition.effects)
        case .hello(let hello):
            guard hello.version == ProtocolInfo.version else {
                let error = ToastError(
                    .unsupportedVersion,
                    "this server speaks protocol version \(ProtocolInfo.version), not \(hello.version)",
                    field: "version"
                )
                return Response(reply: WireEncoder.failure(ref: ref, error: error), effects: [])
            }
            return Response(reply: WireEncoder.ok(ref: ref, result: WireEncoder.hello()), effects: [], directive: .hello(hello))
        case .list(let filter):
            let snapshot = WireEncoder.snapshot(scheduler.snapshot(filter: filter))
            return Response(reply: WireEncoder.ok(ref: ref, result: snapshot), effects: [])
        case .subscribe(let filter, let snapshot):
            return Response(reply: nil, effects: [], directive: .subscribe(filter, snapshot: snapshot), ref: ref)
        case .status:
            return Response(reply: nil, effects: [], directive: .status, ref: ref)
        }
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
