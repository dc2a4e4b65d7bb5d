import ToastCore
import ToastDaemon
import ToastFreedesktop

/// The freedesktop bridge's way into the daemon: the hub itself, in process.
struct BridgeBackend: NotificationBackend {
    let client: InProcessClient

    func execute(_ work: @escaping @Sendable () -> Void) {
        client.execute(work)
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
}
