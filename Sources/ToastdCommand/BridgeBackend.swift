// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore
import ToastDaemon
import ToastFreedesktop

/// The freedesktop bridge's way into the daemon: the hub itself, in process.
struct BridgeBackend: NotificationBackend {
    let client: InProcessClient

    func execute(_ work: @escaping @Sendable () -> Void) {
        client.execute(work)
    }

    func execute(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        client.execute(after: delay, work)
    }

    func perform(
        _ request: RequestEnvelope, source: String,
        completion: @escaping @Sendable (Result<SchedulerReply, ToastError>) -> Void
    ) {
        client.perform(request, source: source, completion: completion)
    }

    func watch(_ deliver: @escaping @Sendable (ToastEvent) -> Void) {
        client.watch(deliver)
    }

    func isLive(_ id: ToastID) -> Bool {
        client.isLive(id)
    }
}

/// The bridge as one of toastd's services: it connects once the socket
/// accepts, and gives the bus name back before the socket closes.
final class BridgeService: DaemonService {
    let name = "freedesktop bridge"
    let server: NotificationServer
    let loop: any EventLoop

    init(server: NotificationServer, loop: any EventLoop) {
        self.server = server
        self.loop = loop
    }

    func start() -> EventLoopFuture<Void> {
        server.start()
        return loop.makeSucceededVoidFuture()
    }

    func stop(reason: String) -> EventLoopFuture<Void> {
        let stopped = loop.makePromise(of: Void.self)
        server.stop { stopped.succeed() }
        return stopped.futureResult
    }
}
