import ToastCore

/// What the bridge needs of toastd. In toastd it is the daemon's hub itself
/// (ToastdCommand adapts `InProcessClient`), so a Notify costs no socket
/// and no JSON; a test may give it a `ToastService` of its own.
public protocol NotificationBackend: Sendable {
    /// Carries out `request`; toasts without a source get `source`.
    /// `completion` runs on any thread, once the outcome is durable, and
    /// must not block.
    func perform(
        _ request: RequestEnvelope, source: String,
        completion: @escaping @Sendable (Result<SchedulerReply, ToastError>) -> Void
    )

    /// Tells `deliver` (on any thread, without blocking) of every event from now on.
    func watch(_ deliver: @escaping @Sendable (ToastEvent) -> Void)
}
