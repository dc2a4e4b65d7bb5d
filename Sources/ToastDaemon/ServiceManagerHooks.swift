// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// What toastd tells its service manager, as plain closures so that the
/// daemon does not depend on systemd: `toastd` wires them to sd_notify
/// (the Systemd module); tests and plain runs leave them empty.
public struct ServiceManagerHooks: Sendable {
    /// The socket accepts connections (or a reload finished); with the status text.
    public var ready: @Sendable (String) -> Void = { _ in }
    /// A new one-line status ("3 shown, 12 queued, 2 subscribers"); sent at most once a second.
    public var status: @Sendable (String) -> Void = { _ in }
    public var reloading: @Sendable () -> Void = {}
    public var stopping: @Sendable () -> Void = {}
    /// The watchdog interval: pings go out at half of it, from the event loop.
    public var watchdog: TimeAmount?
    public var watchdogPing: @Sendable () -> Void = {}

    public init() {}
}
