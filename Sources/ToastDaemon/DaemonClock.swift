// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore
import ToastSystem

/// The daemon's clock: milliseconds that read as Unix time at start-up but
/// advance monotonically, so timers survive wall-clock changes.
struct DaemonClock: Sendable {
    let anchor: Int64
    let start: NIODeadline

    init() {
        anchor = wallClockMilliseconds()
        start = .now()
    }

    func now() -> ToastInstant { anchor + uptimeMilliseconds }

    var uptimeMilliseconds: Int64 { (NIODeadline.now() - start).nanoseconds / 1_000_000 }
}
