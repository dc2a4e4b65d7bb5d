// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// One resuming subscription, as a pure state machine in swift-nio's style:
/// its inputs are what happened (`start`, `connected`, `received`, `failed`,
/// `timerFired`) and each returns what to do. Every client that follows
/// toastd's stream (toast-tail, toast-notify, `toastctl watch` and
/// `status --follow`, `ToastSession.events`) drives one, so the reconnect
/// policy and the resume position (PROTOCOL.md 6.4) are written once:
///
/// - connect; on success send `subscribe`, resuming with `since` and
///   `instance` once a line has been seen;
/// - deliver every line after the reply (events, snapshots, notices);
/// - on a failure wait, 0.25 s doubling to 5 s, and connect again; the wait
///   starts over once a subscription is answered;
/// - stop for good on an impostor (a server of another uid) or a refused
///   subscription: retrying would not change either.
public struct SubscriptionStateMachine: Sendable {
    public static let firstBackoff: Int64 = 250
    public static let maxBackoff: Int64 = 5_000

    public enum Action: Sendable, Equatable {
        /// Open a connection to toastd.
        case connect
        /// Send this request on the new connection (the subscription).
        case send(JSONValue)
        /// Hand the line to the client.
        case deliver(ServerLine)
        /// Connect again after this many milliseconds (`timerFired` then).
        case wait(milliseconds: Int64)
        /// Stop for good.
        case stop(Stop)
        case none
    }

    /// Why a subscription stops for good.
    public enum Stop: Sendable, Equatable, CustomStringConvertible {
        /// The server on the socket runs as another user.
        case impostor(String)
        /// toastd refused the subscription (a bad filter).
        case refused(ToastError)

        public var description: String {
            switch self {
            case .impostor(let reason): reason
            case .refused(let error): "toastd refused the subscription: \(error.message)"
            }
        }
    }

    public enum Failure: Sendable, Equatable {
        /// toastd is down, or went away.
        case disconnected(String)
        /// The server on the socket runs as another user.
        case impostor(String)
    }

    private enum State: Sendable, Equatable {
        case idle
        case connecting
        /// Sent `subscribe`, waiting for its reply.
        case subscribing
        case streaming
        case waiting
        case stopped
    }

    public let filter: EventFilter
    /// Whether a first subscription asks for a snapshot.
    public let snapshot: Bool
    public private(set) var position = StreamPosition()
    private var state = State.idle
    private var backoff = firstBackoff

    public init(filter: EventFilter = EventFilter(), snapshot: Bool = true) {
        self.filter = filter
        self.snapshot = snapshot
    }

    public var isStreaming: Bool { state == .streaming }
    public var isStopped: Bool { state == .stopped }

    public mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .connecting
        return .connect
    }

    public mutating func connected() -> Action {
        guard state == .connecting else { return .none }
        state = .subscribing
        return .send(position.subscribeRequest(filter, snapshot: snapshot))
    }

    public mutating func received(_ line: ServerLine) -> Action {
        switch state {
        case .subscribing:
            guard case .reply(_, let result) = line else { return .none }
            switch result {
            case .failure(let error):
                state = .stopped
                return .stop(.refused(error))
            case .success:
                position.note(line)
                state = .streaming
                backoff = Self.firstBackoff
                return .deliver(line)
            }
        case .streaming:
            if case .reply = line { return .none }
            position.note(line)
            return .deliver(line)
        case .idle, .connecting, .waiting, .stopped:
            return .none
        }
    }

    public mutating func failed(_ failure: Failure) -> Action {
        guard state != .stopped, state != .idle else { return .none }
        if case .impostor(let reason) = failure {
            state = .stopped
            return .stop(.impostor(reason))
        }
        state = .waiting
        let wait = backoff
        backoff = min(Self.maxBackoff, backoff * 2)
        return .wait(milliseconds: wait)
    }

    public mutating func timerFired() -> Action {
        guard state == .waiting else { return .none }
        state = .connecting
        return .connect
    }
}
