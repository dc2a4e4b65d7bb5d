import NIOCore
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's clock: milliseconds that read as Unix time at start-up but
/// advance monotonically, so timers survive wall-clock changes.
struct DaemonClock: Sendable {
    let anchor: Int64
    let start: NIODeadline

    init() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        anchor = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        start = .now()
    }

    func now() -> ToastInstant { anchor + uptimeMilliseconds }

    var uptimeMilliseconds: Int64 { (NIODeadline.now() - start).nanoseconds / 1_000_000 }
}

#if canImport(Glibc)
import Glibc
#endif
