// SPDX-License-Identifier: Apache-2.0
import Synchronization
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// One error for everything ToastKit does: toastd's refusal, with the
/// protocol's error `code` (PROTOCOL.md, section 8), or a transport failure
/// (`code` nil): toastd not running, the connection lost, an impostor.
public struct ToastKitError: Error, Sendable, CustomStringConvertible {
    /// The protocol's error code; `nil` when toastd was not reached or went away.
    public var code: ToastError.Code?
    public var message: String
    /// The request member the error concerns, when toastd names one.
    public var field: String?

    public init(code: ToastError.Code?, message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    init(_ error: ToastError) { self.init(code: error.code, message: error.message, field: error.field) }

    init(_ failure: ToastConnection.Failure) { self.init(code: nil, message: failure.description) }

    init(any error: any Error) {
        switch error {
        case let error as ToastKitError: self = error
        case let error as ToastConnection.Failure: self.init(error)
        case let error as ToastError: self.init(error)
        default: self.init(code: nil, message: "\(error)")
        }
    }

    public var description: String {
        guard let code else { return message }
        return field.map { "\(code.rawValue) (\($0)): \(message)" } ?? "\(code.rawValue): \(message)"
    }
}

/// How a toast ended, as its sender hears it (PROTOCOL.md, section 6.3).
public enum ToastOutcome: Sendable, Hashable {
    /// A person (or a program) invoked this action.
    case action(String)
    /// It was shown, and ended for this reason (`expired`, `user`, ...).
    case dismissed(DismissReason)
    /// It ended without being shown (`superseded`, `dropped`, ...).
    case cancelled(CancelReason)
}

/// A connection to toastd for a Swift program: typed requests in, typed
/// replies and outcomes out, encoded and decoded by ToastCore's codec.
///
/// ```swift
/// let toasts = try await ToastSession.connect()
/// let toast = try await toasts.show("Saved", role: .success, reuseID: "save")
/// try await toast.update(progress: 0.5)
/// let outcome = await toast.outcome          // .action("undo") or .dismissed(.expired)
/// ```
///
/// One connection, shared by every task: requests carry a `ref` and their
/// replies find their caller; a reader thread takes the replies and the
/// ends of this session's toasts as they come. Closing the session (or its
/// last reference going away) closes the connection, which ends the source
/// it bound, if any.
public final class ToastSession: Sendable {
    /// The socket it is connected to.
    public let path: String
    /// The source this session's toasts carry, if it named one.
    public let source: String?
    /// Read only by the reader thread; written under `writer`.
    private let connection: ToastConnection
    private let state = Mutex(State())
    /// One writer at a time on the socket.
    private let writer = Mutex(())

    private struct State {
        var nextRef: Int64 = 1
        var pending: [Int64: CheckedContinuation<JSONValue, any Error>] = [:]
        var waiting: [ToastID: [CheckedContinuation<ToastOutcome, Never>]] = [:]
        /// Outcomes heard before anyone asked (bounded: the newest 1,024).
        var outcomes: [ToastID: ToastOutcome] = [:]
        var order: [ToastID] = []
        var tracker = OutcomeTracker()
        var failure: ToastKitError?
    }

    private init(connection: ToastConnection, source: String?) {
        self.connection = connection
        self.path = connection.path
        self.source = source
    }

    /// Connects to toastd: `socket`, else `$TOASTD_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/toastd.sock`, else `/tmp/toastd-$UID/toastd.sock`.
    /// With `source`, this session's toasts carry it; with `bindSource`, they
    /// end as that source ends when the session closes (section 5.4).
    ///
    /// ```swift
    /// let toasts = try await ToastSession.connect(source: "backup")
    /// ```
    public static func connect(socket: String? = nil, source: String? = nil, bindSource: Bool = false) async throws(ToastKitError)
        -> ToastSession
    {
        let connection: ToastConnection
        do {
            connection = try ToastConnection(path: ToastConnection.path(explicit: socket))
        } catch {
            throw ToastKitError(error)
        }
        let session = ToastSession(connection: connection, source: source)
        session.startReading()
        let hello = Request.Hello(version: ProtocolInfo.version, client: "ToastKit/\(ProtocolInfo.toolVersion)", source: source, bindSource: bindSource && source != nil)
        _ = try await session.perform(.hello(hello))
        return session
    }

    deinit { connection.shutdownBoth() }

    /// Closes the connection: a source it bound ends now.
    public func close() { connection.shutdownBoth() }

    // MARK: - Requests

    /// Sends any request and returns its result, or throws toastd's error.
    ///
    /// ```swift
    /// let status = try await toasts.perform(.status)
    /// print(status["shown"] ?? 0)
    /// ```
    @discardableResult
    public func perform(_ request: Request) async throws(ToastKitError) -> JSONValue {
        try await perform(request, leftOut: .all)
    }

    /// `leftOut`: for an add, the fields the caller did not choose.
    func perform(_ request: Request, leftOut: ToastFieldSet) async throws(ToastKitError) -> JSONValue {
        let reply: JSONValue
        do {
            reply = try await withCheckedThrowingContinuation { continuation in
                let ref: Int64? = state.withLock { state in
                    if let failure = state.failure {
                        continuation.resume(throwing: failure)
                        return nil
                    }
                    let ref = state.nextRef
                    state.nextRef += 1
                    state.pending[ref] = continuation
                    return ref
                }
                guard let ref else { return }
                let line = WireEncoder.request(RequestEnvelope(ref: .int(ref), request: request, defaulted: leftOut))
                let sent: ToastKitError? = writer.withLock { _ -> ToastKitError? in
                    do {
                        try connection.send(line)
                        return nil
                    } catch {
                        return ToastKitError(any: error)
                    }
                }
                if let sent, let continuation = state.withLock({ $0.pending.removeValue(forKey: ref) }) {
                    continuation.resume(throwing: sent)
                }
            }
        } catch let error as ToastKitError {
            throw error
        } catch {
            throw ToastKitError(code: nil, message: "\(error)")
        }
        switch WireDecoder.reply(reply) {
        case .success(let result): return result
        case .failure(let error): throw ToastKitError(error)
        }
    }

    /// Shows a toast; its handle updates it, ends it and hears how it ended.
    ///
    /// ```swift
    /// let toast = try await toasts.show("Build finished", title: "CI", role: .success)
    /// ```
    public func show(
        _ message: String, title: String? = nil, icon: String? = nil, role: ToastRole = .plain,
        duration: ToastDuration? = nil, alignment: ToastAlignment? = nil, scene: String = Toast.defaultScene,
        reuseID: String? = nil, progress: ToastProgress = .none, actions: [ToastAction] = [], dismissible: Bool? = nil
    ) async throws(ToastKitError) -> ToastHandle {
        // What the caller leaves out, toastd's role defaults may fill ([roles] in config.toml).
        var leftOut = ToastFieldSet.all
        if duration != nil { leftOut.remove(.duration) }
        if alignment != nil { leftOut.remove(.alignment) }
        if dismissible != nil { leftOut.remove(.dismissible) }
        return try await show(
            Toast(
                message: message, title: title, icon: icon, role: role, duration: duration, alignment: alignment ?? .top,
                scene: scene, reuseID: reuseID, progress: progress, dismissible: dismissible ?? true, actions: actions
            ),
            leftOut: leftOut
        )
    }

    /// Shows a toast described in full (every member of PROTOCOL.md, section 4).
    /// `leftOut`: the fields the caller did not choose (by default all that
    /// role defaults apply to), which toastd's role defaults may fill; a
    /// field not in it is sent as chosen, even at its default value.
    public func show(_ toast: Toast, leftOut: ToastFieldSet = .all) async throws(ToastKitError) -> ToastHandle {
        do {
            try toast.validate()
        } catch {
            throw ToastKitError(error)
        }
        let result = try await perform(.command(.add(toast)), leftOut: leftOut)
        guard let added = try? WireDecoder.decodeAddResult(result) else {
            throw ToastKitError(code: nil, message: "toastd's reply to add carried no toast")
        }
        if added.dropped { hear(added.record.id, .cancelled(.dropped)) }
        return ToastHandle(session: self, record: added.record, deduped: added.deduped)
    }

    // MARK: - Outcomes

    /// Waits until toast `id` (one this session added or updated) ends.
    func outcome(of id: ToastID) async -> ToastOutcome {
        await withCheckedContinuation { continuation in
            let known: ToastOutcome? = state.withLock { state in
                if let outcome = state.outcomes[id] { return outcome }
                if let failure = state.failure {
                    _ = failure
                    return .cancelled(.sourceEnded)
                }
                state.waiting[id, default: []].append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    private func hear(_ id: ToastID, _ outcome: ToastOutcome) {
        let waiters = state.withLock { state in
            state.outcomes[id] = outcome
            state.order.append(id)
            if state.order.count > 1_024 { state.outcomes[state.order.removeFirst()] = nil }
            return state.waiting.removeValue(forKey: id) ?? []
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    // MARK: - The reader

    private func startReading() {
        DetachedThread.start { [weak self, connection] in
            while true {
                let line: JSONValue
                do {
                    line = try connection.readLine()
                } catch let failure as ToastConnection.Failure {
                    self?.fail(ToastKitError(failure))
                    return
                } catch {
                    self?.fail(ToastKitError(code: nil, message: "\(error)"))
                    return
                }
                guard let self else { return }
                self.receive(line)
            }
        }
    }

    private func receive(_ line: JSONValue) {
        if line["ok"] != nil {
            guard let ref = line["ref"]?.intValue, let continuation = state.withLock({ $0.pending.removeValue(forKey: ref) }) else {
                return
            }
            continuation.resume(returning: line)
            return
        }
        guard let event = try? WireDecoder.decodeEvent(line),
            let (id, outcome) = state.withLock({ $0.tracker.note(event) })
        else { return }
        hear(id, outcome)
    }

    private func fail(_ error: ToastKitError) {
        let (pending, waiting) = state.withLock { state in
            state.failure = error
            defer {
                state.pending = [:]
                state.waiting = [:]
            }
            return (state.pending.values, state.waiting)
        }
        for continuation in pending { continuation.resume(throwing: error) }
        // Toasts whose end was never heard: the connection is gone, and with it their sender.
        for (_, waiters) in waiting { for waiter in waiters { waiter.resume(returning: .cancelled(.sourceEnded)) } }
    }
}
