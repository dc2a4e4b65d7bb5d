// SPDX-License-Identifier: Apache-2.0
import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3): tells systemd (or whoever set NOTIFY_SOCKET) how the
/// service is doing. Without NOTIFY_SOCKET every call is a no-op.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// Whether a service manager listens.
    public var isSupervised: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Sends `KEY=value` assignments, newline-separated; returns whether they were sent.
    @discardableResult
    public func notify(_ assignments: [(String, String)]) -> Bool {
        let text = assignments.map { "\($0)=\($1)" }.joined(separator: "\n")
        return sd_notify(0, text) > 0
    }

    /// READY=1, with the status text.
    public func ready(status: String) { notify([("READY", "1"), ("STATUS", status)]) }

    public func status(_ text: String) { notify([("STATUS", text)]) }

    public func stopping() { notify([("STOPPING", "1"), ("STATUS", "stopping")]) }

    /// RELOADING=1 with MONOTONIC_USEC, as Type=notify-reload expects; send `ready` after.
    public func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        notify([("RELOADING", "1"), ("MONOTONIC_USEC", String(microseconds))])
    }

    public func watchdog() { notify([("WATCHDOG", "1")]) }

    /// The watchdog interval systemd expects pings within (WATCHDOG_USEC, for this process), if any.
    public static func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }
}
