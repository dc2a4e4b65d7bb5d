// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// A part of the daemon that starts and stops: the hub and its
/// persistence, the listening socket, the freedesktop bridge, the duties to
/// the service manager. `DaemonLifecycle` alone starts and stops them.
public protocol DaemonService: AnyObject, Sendable {
    var name: String { get }
    /// Starts it, on the daemon's event loop; the future completes once it
    /// has. A failure stops what started before.
    func start() -> EventLoopFuture<Void>
    /// Stops it, on the loop; the future completes once it has.
    func stop(reason: String) -> EventLoopFuture<Void>
}

/// The one owner of the daemon's lifecycle. Services start in the order
/// given, each once the one before it has; they stop in the reverse order,
/// each after the one started after it has stopped: the service manager
/// hears STOPPING=1 first, the bridge gives its bus name back, the socket
/// stops accepting, and the hub tells its subscribers, flushes them and
/// puts the last steps on disk last.
///
/// The order of effects is decided by `LifecycleStateMachine` without I/O;
/// this class only runs it. Confined to the daemon's event loop.
public final class DaemonLifecycle: @unchecked Sendable {
    private let loop: any EventLoop
    private var machine = LifecycleStateMachine()
    private var services: [any DaemonService] = []
    private let stopped: EventLoopPromise<Void>

    public init(loop: any EventLoop) {
        self.loop = loop
        stopped = loop.makePromise()
    }

    /// Completes once every service has stopped (after `stop`, or a failed start).
    public var finished: EventLoopFuture<Void> { stopped.futureResult }

    /// Starts `services` in order, each once the one before it has; if one
    /// fails, those started before it stop (in reverse) and the future
    /// fails with its error. A stop asked for while they start happens once
    /// the starting is over.
    public func start(_ services: [any DaemonService]) -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        self.services = services
        guard machine.startRequested(count: services.count) else { return loop.makeSucceededVoidFuture() }
        let started = loop.makePromise(of: Void.self)
        startNext(0, started)
        return started.futureResult
    }

    private func startNext(_ index: Int, _ promise: EventLoopPromise<Void>) {
        guard index < services.count else {
            if let reason = machine.startingEnded() { stop(reason: reason) }
            return promise.succeed()
        }
        let service = services[index]
        service.start().whenComplete { [self] result in
            switch result {
            case .success:
                machine.started(index)
                startNext(index + 1, promise)
            case .failure(let error):
                carry(machine.startFailed(), reason: "\(service.name) failed to start")
                promise.fail(error)
            }
        }
    }

    /// Stops every started service, in reverse order. Later calls change nothing.
    public func stop(reason: String) {
        loop.preconditionInEventLoop()
        carry(machine.stopRequested(reason: reason), reason: reason)
    }

    private func carry(_ action: LifecycleStateMachine.StopAction, reason: String) {
        switch action {
        case .stopNext(let index):
            services[index].stop(reason: reason).whenComplete { [self] _ in
                carry(machine.stoppedOne(), reason: reason)
            }
        case .finished:
            stopped.succeed()
        case .wait:
            break
        }
    }
}

/// The order in which services start and stop, without I/O: which to stop
/// next, whether every one has, and what a stop during the start means.
struct LifecycleStateMachine: Sendable, Equatable {
    enum State: Sendable, Equatable {
        case idle
        /// Services `0..<started` are up; `stopAsked`: a stop came meanwhile.
        case starting(started: Int, stopAsked: String?)
        case running(count: Int)
        /// Service `index` is stopping; those below it wait their turn.
        case stopping(index: Int)
        case stopped
    }

    enum StopAction: Sendable, Equatable {
        case stopNext(Int)
        /// Every service has stopped (or none had started).
        case finished
        /// Nothing now: the start is still running, or a stop already is.
        case wait
    }

    private(set) var state = State.idle

    /// Whether to start them (false once a stop came first).
    mutating func startRequested(count: Int) -> Bool {
        guard state == .idle else { return false }
        state = .starting(started: 0, stopAsked: nil)
        return true
    }

    mutating func started(_ index: Int) {
        guard case .starting(let started, let asked) = state, index == started else { return }
        state = .starting(started: started + 1, stopAsked: asked)
    }

    /// Every service started: running, or the reason of a stop asked for meanwhile.
    mutating func startingEnded() -> String? {
        guard case .starting(let started, let asked) = state else { return nil }
        state = .running(count: started)
        return asked
    }

    mutating func stopRequested(reason: String) -> StopAction {
        switch state {
        case .idle:
            state = .stopped
            return .finished
        case .starting(let started, _):
            state = .starting(started: started, stopAsked: reason)
            return .wait
        case .running(let count):
            guard count > 0 else {
                state = .stopped
                return .finished
            }
            state = .stopping(index: count - 1)
            return .stopNext(count - 1)
        case .stopping, .stopped:
            return .wait
        }
    }

    /// The service being started threw: those before it stop, now.
    mutating func startFailed() -> StopAction {
        guard case .starting(let started, _) = state else { return .wait }
        state = .running(count: started)
        return stopRequested(reason: "")
    }

    mutating func stoppedOne() -> StopAction {
        guard case .stopping(let index) = state else { return .wait }
        guard index > 0 else {
            state = .stopped
            return .finished
        }
        state = .stopping(index: index - 1)
        return .stopNext(index - 1)
    }
}
