// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Signals a process takes on one thread of its own, with `sigwait`, with
/// the signals blocked in every thread first.
///
/// Ignoring a signal and handing it to a Dispatch source (toastd's way
/// before) lost the ones that came between the two: the source is
/// registered later, on Dispatch's own thread, and a SIGTERM sent as soon
/// as a socket-activated toastd had answered its first client was ignored
/// (a benchmark waited 25 minutes for it to stop). A blocked signal stays
/// pending until the waiting thread takes it. Children started with
/// `Spawn` get an empty mask and default dispositions back.
public enum BlockedSignals {
    /// Blocks `signals` in the calling thread and in every thread it starts
    /// from now on: call it before any thread is started.
    public static func block(_ signals: [Int32]) {
        var set = Self.set(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts a thread that takes `signals` (blocked with `block`) one at a
    /// time, for good, and calls `handler` with each on that thread. It
    /// sleeps in the kernel between signals: no wakeup at rest.
    public static func wait(for signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) {
        block(signals)
        DetachedThread.start {
            var set = Self.set(signals)
            var taken: Int32 = 0
            while true {
                if sigwait(&set, &taken) == 0 { handler(taken) }
            }
        }
    }

    private static func set(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}
