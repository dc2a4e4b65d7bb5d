// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Drives a `SubscriptionStateMachine` on the calling thread, with blocking
/// reads: for the clients that give a thread to the stream (`toastctl
/// watch` and `status --follow`, `ToastSession.events`). Clients that poll
/// several descriptors drive the machine themselves (toast-tail,
/// toast-notify).
public enum ResumingSubscriber {
    /// Follows the stream until the machine stops (an impostor, a refused
    /// subscription: returns which) or `shouldStop` says so (returns nil).
    /// `deliver` gets each line after the subscribe request (the reply
    /// first), decoded and as the wire had it; `onConnection` each new
    /// connection (to close it from another thread); `onWait` each wait
    /// before a reconnection, with the reason.
    public static func run(
        path: String, machine: inout SubscriptionStateMachine, shouldStop: () -> Bool = { false },
        onConnection: (ToastConnection) -> Void = { _ in }, onWait: (Int64, String) -> Void = { _, _ in },
        deliver: (ServerLine, JSONValue) throws -> Void
    ) rethrows -> SubscriptionStateMachine.Stop? {
        var connection: ToastConnection?
        var reason = "disconnected"
        var action = machine.start()
        /// The line `deliver` gets, as the wire had it.
        var pending: JSONValue = .null

        /// The next line's action, or the failure's.
        func next() -> SubscriptionStateMachine.Action {
            guard let connection else { return machine.failed(.disconnected(reason)) }
            do {
                let value = try connection.readLine()
                pending = value
                guard let line = try? WireDecoder.decodeServerLine(value) else { return .none }
                return machine.received(line)
            } catch {
                reason = Self.reason(error)
                return machine.failed(Self.failure(error))
            }
        }

        while !shouldStop() {
            switch action {
            case .connect:
                do {
                    let opened = try ToastConnection(path: path)
                    connection = opened
                    onConnection(opened)
                    action = machine.connected()
                } catch {
                    reason = Self.reason(error)
                    action = machine.failed(Self.failure(error))
                }
            case .send(let request):
                do {
                    try connection?.send(request)
                    action = next()
                } catch {
                    reason = Self.reason(error)
                    action = machine.failed(Self.failure(error))
                }
            case .deliver(let line):
                try deliver(line, pending)
                action = next()
            case .none:
                // A line to pass over (a reply while streaming): read on.
                action = next()
            case .wait(let milliseconds):
                connection?.shutdownBoth()
                connection = nil
                onWait(milliseconds, reason)
                var slept: Int64 = 0
                while slept < milliseconds, !shouldStop() {
                    let slice = min(50, milliseconds - slept)
                    usleep(useconds_t(slice * 1_000))
                    slept += slice
                }
                action = machine.timerFired()
            case .stop(let why):
                connection?.shutdownBoth()
                return why
            }
        }
        connection?.shutdownBoth()
        return nil
    }

    /// A connection's failure as the machine takes it.
    public static func failure(_ error: any Error) -> SubscriptionStateMachine.Failure {
        if let failure = error as? ToastConnection.Failure, case .impostor = failure { return .impostor("\(failure)") }
        return .disconnected(reason(error))
    }

    /// The first line of an error's description.
    public static func reason(_ error: any Error) -> String {
        "\(error)".split(separator: "\n").first.map(String.init) ?? "disconnected"
    }
}
