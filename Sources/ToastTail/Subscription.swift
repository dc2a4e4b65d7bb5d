// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import CommandLineSupport
import ToastKit
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// toast-tail's subscription for the interactive viewer, which polls the
/// socket with the terminal: it drives ToastKit's `SubscriptionStateMachine`
/// (connect, subscribe resuming where the last connection stopped, wait
/// 0.25 s doubling to 5 s when toastd goes away) and applies what it
/// delivers to the model. It also keeps the daemon's clock, learned from
/// event times, for countdowns. A server that runs as another user is never
/// trusted: `fatal` says why, and the viewer exits.
final class Subscription {
    let socketPath: String
    private var machine: SubscriptionStateMachine
    private(set) var connection: ToastConnection?
    /// Why the viewer must stop (an impostor on the socket), if it must.
    private(set) var fatal: String?
    /// When the machine's wait ends (monotonic ms), and whether it waits.
    private var retryAt: Int64 = 0
    private var waiting = false
    private var clockOffset: Int64

    init(socketPath: String, scene: String?, roles: [String]) {
        self.socketPath = socketPath
        machine = SubscriptionStateMachine(filter: EventFilter(scene: scene, roleNames: roles))
        clockOffset = wallClockMilliseconds() - monotonicMilliseconds()
    }

    var position: StreamPosition { machine.position }

    /// The daemon's clock (Unix milliseconds that never go backwards), as last learned.
    var now: Int64 { monotonicMilliseconds() + clockOffset }

    var fileDescriptor: Int32? { connection?.fileDescriptor }

    /// Milliseconds until the next connection attempt, when disconnected.
    func nextAttemptIn() -> Int64? {
        connection == nil ? max(0, retryAt - monotonicMilliseconds()) : nil
    }

    /// Connects and subscribes if disconnected and the wait has passed.
    func connectIfDue(model: inout TailModel) {
        guard connection == nil, fatal == nil, monotonicMilliseconds() >= retryAt else { return }
        let action = waiting ? machine.timerFired() : machine.start()
        waiting = false
        carry(action, model: &model)
    }

    /// Reads what arrived and applies it; returns whether the model changed.
    func receive(into model: inout TailModel) -> Bool {
        guard let connection else { return false }
        do {
            try connection.receive()
        } catch {
            carry(machine.failed(ResumingSubscriber.failure(error)), model: &model, why: Self.reason(error))
            return true
        }
        var changed = false
        while let text = connection.bufferedLine() {
            guard let value = try? JSONValue.parse(text), let line = try? WireDecoder.decodeServerLine(value) else { continue }
            if let time = line.time { clockOffset = time - monotonicMilliseconds() }
            changed = carry(machine.received(line), model: &model) || changed
        }
        return changed
    }

    /// Carries out what the machine asks; whether the model changed.
    @discardableResult
    private func carry(_ action: SubscriptionStateMachine.Action, model: inout TailModel, why: String = "disconnected") -> Bool {
        switch action {
        case .connect:
            do {
                connection = try ToastConnection(path: socketPath)
                model.link = .connecting
                return carry(machine.connected(), model: &model)
            } catch {
                return carry(machine.failed(ResumingSubscriber.failure(error)), model: &model, why: Self.reason(error))
            }
        case .send(let request):
            do {
                try connection?.send(request)
            } catch {
                return carry(machine.failed(ResumingSubscriber.failure(error)), model: &model, why: Self.reason(error))
            }
            return false
        case .deliver(let line):
            if StreamPosition.resumed(line) {
                // The missed events follow; what the model holds stays valid.
                model.link = .connected
                return true
            }
            if case .reply = line { return false }
            model.apply(line)
            return true
        case .wait(let milliseconds):
            connection = nil
            waiting = true
            retryAt = monotonicMilliseconds() + milliseconds
            model.link = .disconnected(why, retryAt: now + milliseconds)
            return true
        case .stop(let stop):
            connection = nil
            fatal = "\(stop)"
            model.link = .disconnected(Terminal.sanitize("\(stop)"), retryAt: nil)
            return true
        case .none:
            return false
        }
    }

    /// Why a connection failed, in a few words (without toastctl's hint on how to start toastd).
    static func reason(_ error: any Error) -> String {
        if case ToastConnection.Failure.cannotConnect(_, let reason) = error { return reason }
        return ResumingSubscriber.reason(error)
    }
}
