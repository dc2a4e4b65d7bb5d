// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

/// Who gets a connection, and what a connection that says nothing may keep.
///
/// - **Spare connections.** Past `--max-connections`, `spares` more are
///   admitted, each for the requests a person needs to take back control
///   (`status`, `dismiss`, `clear`, `pause`, `resume`, `hello`): 256 idle
///   connections no longer lock out `toastctl dismiss` (issue #38). Any
///   other request on a spare connection is answered
///   `too_many_connections`, and the connection stays for the allowed ones.
/// - **The first line.** A connection that sends no line within
///   `firstLineTimeout` is answered `idle_timeout` and closed: without it, a
///   client that opened connections and said nothing held them for good.
///   A connection that has sent a line (a subscriber waiting for events, a
///   script between requests) has no idle bound.
struct Admission {
    enum Kind: Equatable {
        case regular
        case spare
    }

    static let spares = 8
    static let firstLineTimeout = TimeAmount.seconds(10)
    static let spareOps: Set<String> = ["hello", "status", "dismiss", "clear", "pause", "resume"]

    let kind: Kind
    /// Whether the connection has sent a line yet.
    var hasSpoken = false

    /// The kind of a new connection when `open` are open, or nil to refuse it.
    static func admit(open: Int, limit: Int) -> Kind? {
        if open < limit { return .regular }
        if open < limit + spares { return .spare }
        return nil
    }

    /// Whether a line may be answered: always on a regular connection; on a
    /// spare one, only the ops a person needs (a line that is not a JSON
    /// request is answered as usual, with its error). Returns the refusal,
    /// with the request's `ref`, or nil.
    func refusal(of line: ByteBuffer, limit: Int) -> [UInt8]? {
        guard kind == .spare, case .object(let request)? = try? JSONValue.parse(Array(line.readableBytesView)),
            case .string(let op)? = request["op"], !Self.spareOps.contains(op)
        else { return nil }
        let error = ToastError(
            .tooManyConnections,
            "toastd serves its limit of \(limit) connections; this spare connection takes only "
                + Self.spareOps.sorted().joined(separator: ", ")
        )
        return WireEncoder.failureLine(ref: request["ref"], error: error)
    }
}

extension ToastHub {
    func armFirstLineTimer(_ connection: Connection) {
        connection.firstLineTimer = loop.scheduleTask(in: Admission.firstLineTimeout) { [self] in
            guard let connection = connections[connection.id], !connection.admission.hasSpoken else { return }
            let error = ToastError(
                .idleTimeout, "no request within \(Admission.firstLineTimeout.nanoseconds / 1_000_000_000) s of connecting; closing"
            )
            let channel = connection.channel
            channel.writeAndFlush(ByteBuffer(bytes: WireEncoder.failureLine(ref: nil, error: error))).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }

    /// Notes that a connection spoke: it is no longer idle.
    func noteSpoken(_ connection: Connection) {
        guard !connection.admission.hasSpoken else { return }
        connection.admission.hasSpoken = true
        connection.firstLineTimer?.cancel()
        connection.firstLineTimer = nil
    }

    /// Whether a line may be answered on `connection` (a spare one takes
    /// only some ops); a refused line is answered with its refusal.
    func admits(_ line: FramedLine, on connection: Connection) -> Bool {
        guard case .line(let bytes) = line, let refusal = connection.admission.refusal(of: bytes, limit: limits.maxConnections) else {
            return true
        }
        send(refusal, to: connection)
        return false
    }
}
