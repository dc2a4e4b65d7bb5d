// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// ToastKit for one-shot tools and scripts that have no async context: the
/// same typed requests, answered on the calling thread.
///
/// ```swift
/// let toasts = try BlockingToasts()
/// let id = try toasts.show(Toast(message: "Deploy?", actions: [ToastAction(id: "yes", label: "Yes")]))
/// if case .action("yes") = try toasts.waitForOutcome(of: id, timeout: .seconds(30)) { deploy() }
/// ```
public final class BlockingToasts {
    private let connection: ToastConnection
    private var heard: [ToastID: ToastOutcome] = [:]
    private var tracker = OutcomeTracker()

    /// Connects as `ToastSession.connect` does, on this thread.
    public init(socket: String? = nil, source: String? = nil, bindSource: Bool = false) throws(ToastKitError) {
        do {
            connection = try ToastConnection(path: ToastConnection.path(explicit: socket))
        } catch {
            throw ToastKitError(error)
        }
        if source != nil {
            try perform(.hello(Request.Hello(version: ProtocolInfo.version, client: "ToastKit", source: source, bindSource: bindSource)))
        }
    }

    /// Sends a request and returns its result, or throws toastd's error.
    @discardableResult
    public func perform(_ request: Request, timeout: Duration = .seconds(30)) throws(ToastKitError) -> JSONValue {
        let reply: JSONValue
        do {
            try connection.send(WireEncoder.request(request))
            reply = try connection.readReply(timeout: Self.milliseconds(timeout)) { note($0) }
        } catch {
            throw ToastKitError(error)
        }
        switch WireDecoder.reply(reply) {
        case .success(let result): return result
        case .failure(let error): throw ToastKitError(error)
        }
    }

    /// Shows a toast and returns its id.
    public func show(_ toast: Toast) throws(ToastKitError) -> ToastID {
        let result = try perform(.command(.add(toast)))
        guard let id = result["id"]?.intValue else { throw ToastKitError(code: nil, message: "toastd's reply to add carried no id") }
        if result["dropped"] == .bool(true) { heard[ToastID(id)] = .cancelled(.dropped) }
        return ToastID(id)
    }

    /// Waits until toast `id` (shown through this connection) ends; `nil` when `timeout` passes first.
    public func waitForOutcome(of id: ToastID, timeout: Duration? = nil) throws(ToastKitError) -> ToastOutcome? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while heard[id] == nil {
            let left = deadline.map { ContinuousClock.now.duration(to: $0) }
            if let left, left <= .zero { return nil }
            do {
                note(try connection.readLine(timeout: left.map(Self.milliseconds)))
            } catch .timedOut {
                return nil
            } catch {
                throw ToastKitError(error)
            }
        }
        return heard[id]
    }

    private func note(_ line: JSONValue) {
        guard let event = try? WireDecoder.decodeEvent(line), let (id, outcome) = tracker.note(event) else { return }
        heard[id] = outcome
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
