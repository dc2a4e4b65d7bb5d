// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// What the bridge needs of toastd. In toastd it is the daemon's hub itself
/// (ToastdCommand adapts `InProcessClient`), so a Notify costs no socket
/// and no JSON, and its executor is the hub's event loop.
///
/// Everything the bridge is given back runs on the backend's executor, one
/// thing at a time, and the bridge's `sd_bus` connection lives there.
public protocol NotificationBackend: Sendable {
    /// Runs `work` on the executor, after whatever is running there now
    /// (never inside the caller, even when called on the executor).
    func execute(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on the executor once `delay` has passed.
    func execute(after delay: Duration, _ work: @escaping @Sendable () -> Void)

    /// Carries out `request`; toasts without a source get `source`.
    /// `completion` runs on the executor, after `perform` has returned,
    /// once the outcome is durable; it must not block.
    func perform(
        _ request: RequestEnvelope, source: String,
        completion: @escaping @Sendable (Result<SchedulerReply, ToastError>) -> Void
    )

    /// Tells `deliver` (on the executor, without blocking) of every event from now on.
    func watch(_ deliver: @escaping @Sendable (ToastEvent) -> Void)

    /// Whether toast `id` is live (on the executor).
    func isLive(_ id: ToastID) -> Bool
}
