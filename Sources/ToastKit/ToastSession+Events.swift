// SPDX-License-Identifier: Apache-2.0
import Synchronization
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

extension ToastSession {
    /// The live event stream of a scene (or of all), on a connection of its
    /// own. When toastd goes away the stream reconnects (0.25 s doubling to
    /// 5 s) and resumes where it stopped (PROTOCOL.md, section 6.4;
    /// `SubscriptionStateMachine`); it ends
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
            DetachedThread.start {
                var machine = SubscriptionStateMachine(filter: filter, snapshot: false)
                let stop = ResumingSubscriber.run(
                    path: path, machine: &machine, shouldStop: { stopped.withLock { $0 } },
                    onConnection: { connection in current.withLock { $0 = connection } }
                ) { line, _ in
                    if case .event(let event) = line { continuation.yield(event) }
                }
                if let stop {
                    continuation.finish(throwing: ToastKitError(code: nil, message: "\(stop)"))
                } else {
                    continuation.finish()
                }
            }
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
