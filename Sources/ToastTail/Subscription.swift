import CommandLineSupport
import ToastKit
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// toast-tail's subscription: connects, subscribes, and when toastd goes
/// away reconnects with backoff (0.25 s doubling to 5 s). A new connection
/// resumes where the last one stopped (`since`): toastd replays what was
/// missed, or, if it can no longer, sends a snapshot that resynchronizes
/// the model. It also keeps the daemon's clock, learned from event times,
/// for countdowns. A server that runs as another user is never trusted:
/// `fatal` says why, and the viewer exits.
final class Subscription {
    static let firstBackoff: Int64 = 250
    static let maxBackoff: Int64 = 5_000

    let socketPath: String
    let filter: EventFilter
    private(set) var position = StreamPosition()
    private(set) var connection: ToastConnection?
    /// Why the viewer must stop (an impostor on the socket), if it must.
    private(set) var fatal: String?
    private var retryAt: Int64 = 0
    private var backoff = firstBackoff
    private var clockOffset: Int64

    init(socketPath: String, scene: String?, roles: [String]) {
        self.socketPath = socketPath
        filter = EventFilter(scene: scene, roleNames: roles)
        clockOffset = wallClockMilliseconds() - monotonicMilliseconds()
    }

    /// The daemon's clock (Unix milliseconds that never go backwards), as last learned.
    var now: Int64 { monotonicMilliseconds() + clockOffset }

    var fileDescriptor: Int32? { connection?.fileDescriptor }

    /// Milliseconds until the next connection attempt, when disconnected.
    func nextAttemptIn() -> Int64? {
        connection == nil ? max(0, retryAt - monotonicMilliseconds()) : nil
    }

    /// Connects and subscribes if disconnected and the backoff has passed.
    func connectIfDue(model: inout TailModel) {
        guard connection == nil, monotonicMilliseconds() >= retryAt else { return }
        do {
            _ = try subscribe()
            model.link = .connecting
        } catch let failure as ToastConnection.Failure {
            if case .impostor = failure { fatal = "\(failure)" }
            disconnected(model: &model, why: Self.reason(failure))
        } catch {
            disconnected(model: &model, why: Self.reason(error))
        }
    }

    /// Reads what arrived and applies it; returns whether the model changed.
    func receive(into model: inout TailModel) -> Bool {
        guard let connection else { return false }
        do {
            try connection.receive()
        } catch {
            disconnected(model: &model, why: Self.reason(error))
            return true
        }
        var changed = false
        while let text = connection.bufferedLine() {
            guard let value = try? JSONValue.parse(text), let line = try? WireDecoder.decodeServerLine(value) else { continue }
            if case .reply(_, .failure(let refusal)) = line {
                disconnected(model: &model, why: Terminal.sanitize(refusal.message))
                return true
            }
            position.note(line)
            if StreamPosition.resumed(line) {
                // The missed events follow; what the model holds stays valid.
                model.link = .connected
                backoff = Self.firstBackoff
            }
            if let time = line.time { clockOffset = time - monotonicMilliseconds() }
            if case .snapshot = line { backoff = Self.firstBackoff }
            if case .reply = line { continue }
            model.apply(line)
            changed = true
        }
        return changed
    }

    /// Connects and sends the subscription, resuming where the last one stopped.
    private func subscribe() throws -> ToastConnection {
        let connection = try ToastConnection(path: socketPath)
        try connection.send(position.subscribeRequest(filter))
        self.connection = connection
        return connection
    }

    private func disconnected(model: inout TailModel, why: String) {
        connection = nil
        retryAt = monotonicMilliseconds() + backoff
        model.link = .disconnected(why, retryAt: now + backoff)
        growBackoff()
    }

    private func growBackoff() { backoff = min(Self.maxBackoff, backoff * 2) }

    /// Why a connection failed, in a few words (without toastctl's hint on how to start toastd).
    static func reason(_ error: any Error) -> String {
        if case ToastConnection.Failure.cannotConnect(_, let reason) = error { return reason }
        return "\(error)"
    }

    /// For the line modes: blocks until subscribed, retrying with backoff;
    /// `onRetry` hears each failure and the delay before the next attempt.
    func connectBlocking(onRetry: (String, Int64) -> Void) -> ToastConnection {
        while true {
            do {
                return try subscribe()
            } catch ToastConnection.Failure.impostor(let path, let uid) {
                printError("toast-tail: \(ToastConnection.Failure.impostor(path: path, uid: uid))")
                exit(3)
            } catch {
                onRetry(Self.reason(error), backoff)
                usleep(useconds_t(backoff * 1000))
                growBackoff()
            }
        }
    }

    func resetBackoff() { backoff = Self.firstBackoff }

    /// For the line modes: takes note of a line read on the connection.
    func note(_ value: JSONValue) { position.note(value) }
}
