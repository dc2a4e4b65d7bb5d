// SPDX-License-Identifier: Apache-2.0
/// The service manager's timers, armed by activity and silent at rest
/// (issue #44): STATUS= goes out when the status changed, at most once a
/// second; the code pages are let go of after `quiet` without a step, the
/// first time counted from start-up.
/// Nothing repeats: with no step, no timer is armed, and an idle toastd
/// does not wake (outside systemd's watchdog).
///
/// A pure value: `ServiceManagerDuties` tells it what happened, with the
/// time, and carries out what it answers. Times are milliseconds.
struct RestTimers: Sendable {
    enum Action: Equatable, Sendable {
        /// Arm the status timer to fire at this time.
        case armStatus(at: Int64)
        /// Send this STATUS= line.
        case sendStatus(String)
        /// Arm the quiet timer to fire at this time.
        case armQuiet(at: Int64)
        /// Let go of the code pages: `quiet` passed without a step.
        case releaseCodePages
    }

    let statusInterval: Int64
    let quiet: Int64
    private var lastStatus: String
    private var lastStatusSent: Int64 = .min / 2
    private var statusArmed = false
    private var lastStep: Int64
    private var quietArmed = false

    init(status: String, now: Int64, statusInterval: Int64 = 1_000, quiet: Int64 = 30_000) {
        self.statusInterval = statusInterval
        self.quiet = quiet
        lastStatus = status
        lastStatusSent = now
        lastStep = now
    }

    /// Start-up is over: it ran code that will not run again, so the quiet
    /// spell that lets go of it starts now. (Not at once: the first client,
    /// often the one whose connection started toastd, would fault the
    /// pages straight back in.)
    mutating func started(now: Int64) -> [Action] {
        lastStep = now
        quietArmed = true
        return [.armQuiet(at: now + quiet)]
    }

    /// A step ended (a request, a timer, a connection's end): the status may have changed.
    mutating func stepEnded(now: Int64) -> [Action] {
        lastStep = now
        var actions: [Action] = []
        if !statusArmed {
            statusArmed = true
            actions.append(.armStatus(at: max(now, lastStatusSent + statusInterval)))
        }
        if !quietArmed {
            quietArmed = true
            actions.append(.armQuiet(at: now + quiet))
        }
        return actions
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

    /// The quiet timer fired: the pages go if no step came for `quiet`, else
    /// it waits for the rest. A timer that was not armed does nothing.
    mutating func quietTimerFired(now: Int64) -> [Action] {
        guard quietArmed else { return [] }
        quietArmed = false
        if now - lastStep >= quiet { return [.releaseCodePages] }
        quietArmed = true
        return [.armQuiet(at: lastStep + quiet)]
    }
}
