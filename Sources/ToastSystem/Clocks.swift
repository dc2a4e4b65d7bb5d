// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The one reading of the monotonic clock every Swift module above the
/// protocol shares (clients' timeouts and backoffs, the bus watcher's
/// deadlines, the benchmarks' timings). Only libsystemd's wrapper, which
/// stands on nothing of toastd's, reads it on its own.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

public func monotonicMilliseconds() -> Int64 { Int64(monotonicNanoseconds() / 1_000_000) }

/// Unix time in milliseconds: toastd's clock reads the same on one machine.
public func wallClockMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
}
