// SPDX-License-Identifier: Apache-2.0
/// The service manager's status timer, armed by activity and silent at
/// rest (issue #44): STATUS= goes out when the status changed, at most once
/// a second. Nothing repeats: with no step, no timer is armed, and an idle
/// toastd does not wake (outside systemd's watchdog).
///
/// A pure value: `ServiceManagerDuties` tells it what happened, with the
/// time, and carries out what it answers. Times are milliseconds.
struct RestTimers: Sendable {
    enum Action: Equatable, Sendable {
        /// Arm the status timer to fire at this time.
        case armStatus(at: Int64)
        /// Send this STATUS= line.
        case sendStatus(String)
    }

    let statusInterval: Int64
    private var lastStatus: String
    private var lastStatusSent: Int64 = .min / 2
    private var statusArmed = false

    init(status: String, now: Int64, statusInterval: Int64 = 1_000) {
        self.statusInterval = statusInterval
        lastStatus = status
        lastStatusSent = now
    }

    /// A step ended (a request, a timer, a connection's end): the status may have changed.
    mutating func stepEnded(now: Int64) -> [Action] {
        guard !statusArmed else { return [] }
        statusArmed = true
        return [.armStatus(at: max(now, lastStatusSent + statusInterval))]
    }

    /// The status timer fired; `status` is the line now.
    mutating func statusTimerFired(now: Int64, status: String) -> [Action] {
        statusArmed = false
        guard status != lastStatus else { return [] }
        lastStatus = status
        lastStatusSent = now
        return [.sendStatus(status)]
    }

    /// The status was sent another way (READY=1 after a reload carries it).
    mutating func statusSent(_ status: String, now: Int64) {
        lastStatus = status
        lastStatusSent = now
    }
}
