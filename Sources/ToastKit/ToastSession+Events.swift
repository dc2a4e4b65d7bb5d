import Synchronization
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

extension ToastSession {
    /// The live event stream of a scene (or of all), on a connection of its
    /// own. When toastd goes away the stream reconnects (0.25 s doubling to
    /// 5 s) and resumes where it stopped (PROTOCOL.md, section 6.4); it ends
    /// with an error only for an impostor on the socket, and when the task
    /// iterating it is cancelled.
    ///
    /// ```swift
    /// for try await event in toasts.events(scene: "default") {
    ///     if case .presented(let record) = event.kind { print(record.toast.message) }
    /// }
    /// ```
    public func events(scene: String? = nil, roles: Set<ToastRole>? = nil) -> AsyncThrowingStream<ToastEvent, any Error> {
        let path = self.path
        let filter = EventFilter(scene: scene, roles: roles)
        let current = Mutex<ToastConnection?>(nil)
        let stopped = Mutex(false)
        return AsyncThrowingStream<ToastEvent, any Error> { (continuation: AsyncThrowingStream<ToastEvent, any Error>.Continuation) in
            continuation.onTermination = { _ in
                stopped.withLock { $0 = true }
                current.withLock { $0?.shutdownBoth() }
            }
            let reader = ReaderThread {
                var since: UInt64?
                var instance: String?
                var backoff: UInt32 = 250_000
                while !stopped.withLock({ $0 }) {
                    do {
                        let connection = try ToastConnection(path: path)
                        current.withLock { $0 = connection }
                        if stopped.withLock({ $0 }) { return }
                        let request = Request.Subscribe(filter: filter, snapshot: false, since: since, instance: instance)
                        let reply = try connection.request(WireEncoder.request(.subscribe(request)), timeout: 30_000)
                        guard case .success(let result) = WireDecoder.reply(reply) else {
                            continuation.finish(throwing: ToastKitError(code: nil, message: "toastd refused the subscription: \(reply.serialized)"))
                            return
                        }
                        instance = result["instance"]?.stringValue
                        backoff = 250_000
                        while true {
                            let line = try connection.readLine()
                            if let seq = line["seq"]?.intValue, seq > 0 { since = UInt64(seq) }
                            if let event = try? WireDecoder.decodeEvent(line) { continuation.yield(event) }
                        }
                    } catch {
                        if let failure = error as? ToastConnection.Failure, case .impostor = failure {
                            continuation.finish(throwing: ToastKitError(failure))
                            return
                        }
                        if stopped.withLock({ $0 }) { break }
                        usleep(backoff)
                        backoff = min(5_000_000, backoff * 2)
                    }
                }
                continuation.finish()
            }
            reader.start()
        }
    }

    /// Runs `body` with a session whose toasts carry `source`; with `bind`,
    /// they end as that source ends (section 5.4) when the body returns or
    /// throws, or when the process dies: the connection closes either way.
    ///
    /// ```swift
    /// try await ToastSession.withSource("backup", bind: true) { toasts in
    ///     _ = try await toasts.show("Backing up…", progress: .indeterminate, dismissible: false)
    ///     try await runBackup()
    /// }   // the spinner ends here, whatever happened
    /// ```
    public static func withSource<Result>(
        _ source: String, bind: Bool, socket: String? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: (ToastSession) async throws -> Result
    ) async throws -> Result {
        let session = try await connect(socket: socket, source: source, bindSource: bind)
        defer { session.close() }
        return try await body(session)
    }
}
