// SPDX-License-Identifier: Apache-2.0
/// A failure that toastd reports on the wire: a stable machine-readable
/// code, a human message, and the field it concerns where there is one.
public struct ToastError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        // Framing and parsing
        case invalidUTF8 = "invalid_utf8"
        case invalidJSON = "invalid_json"
        case lineTooLong = "line_too_long"
        // Request shape
        case invalidRequest = "invalid_request"
        case unknownOp = "unknown_op"
        case unknownField = "unknown_field"
        case missingField = "missing_field"
        case invalidField = "invalid_field"
        case unsupportedVersion = "unsupported_version"
        // Scheduler
        case notFound = "not_found"
        case notDismissible = "not_dismissible"
        case unknownAction = "unknown_action"
        case conflict = "conflict"
        case queueFull = "queue_full"
        case sourceQueueFull = "source_queue_full"
        // Connection level (the daemon)
        case tooManyConnections = "too_many_connections"
        case forbidden = "forbidden"
        case shuttingDown = "shutting_down"
        /// A connection sent no line within its first seconds; it is closed.
        case idleTimeout = "idle_timeout"
        /// `reload`: the configuration file was refused; the old one stays.
        case invalidConfig = "invalid_config"
    }

    public var code: Code
    public var message: String
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String {
        if let field { return "\(code.rawValue): \(field): \(message)" }
        return "\(code.rawValue): \(message)"
    }

    static func invalid(_ field: String, _ message: String) -> ToastError {
        ToastError(.invalidField, message, field: field)
    }
}
