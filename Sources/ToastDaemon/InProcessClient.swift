// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

/// A client inside toastd's own process (the freedesktop bridge). Its
/// commands are carried out like a connection's lines (rules, role
/// defaults, dedupe, events for every subscriber), without a socket or
/// JSON between them, and each outcome comes once its step is committed, as
/// a reply would. Safe from any thread; the callbacks run on the hub's loop
/// and must not block it.
public struct InProcessClient: Sendable {
    let hub: ToastHub

    /// The hub's event loop, where the callbacks run.
    public var loop: any EventLoop { hub.loop }

    /// Runs `work` on the hub's event loop, where the callbacks below run
    /// too; after whatever runs there now, even when called from the loop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        hub.loop.execute(work)
    }

    /// Runs `work` on the hub's event loop once `delay` has passed.
    public func execute(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        hub.loop.scheduleTask(in: TimeAmount(delay), work)
    }

    /// Carries out `request` as one step; toasts without a source get `source`.
    public func perform(
        _ request: RequestEnvelope, source: String,
        completion: @escaping @Sendable (Result<SchedulerReply, ToastError>) -> Void
    ) {
        let hub = self.hub
        hub.loop.execute { hub.perform(request, source: source, completion: completion) }
    }

    /// Whether toast `id` is live; on the hub's event loop only.
    public func isLive(_ id: ToastID) -> Bool {
        hub.loop.preconditionInEventLoop()
        return hub.service.scheduler.state(of: id) != nil
    }

    /// Tells `deliver` of every event from now on, each once it is committed.
    public func watch(_ deliver: @escaping @Sendable (ToastEvent) -> Void) {
        let hub = self.hub
        hub.loop.execute { hub.watch(deliver) }
    }
}
