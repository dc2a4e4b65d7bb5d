// SPDX-License-Identifier: Apache-2.0
#if canImport(CHeapTrim)
import CHeapTrim
#endif

/// When toastd hands the heap's free pages back after a burst.
///
/// A pipelined burst fills transient buffers (the steps' replies, the
/// durable batches, NIO's reads) that are freed once it is over; glibc
/// keeps their pages, between the ones still in use, so RSS after 100,000
/// queued toasts varied between runs by the shape of the burst (58 to 79
/// MiB), while `malloc_trim` brought it to 58 every time (docs/BENCHMARKS.md,
/// section 4). Once `thresholdBytes` have been written since the last trim,
/// a timer checks every `quiet` whether a step happened since it last
/// looked; the first time none did, the burst is over and the heap is
/// trimmed. An idle toastd arms no timer.
///
/// A pure value, like `RestTimers`: the hub keeps it and carries out its answers.
struct BurstTrim: Sendable {
    let thresholdBytes: Int
    private var written = 0
    /// The step count when the timer was armed, while it is.
    private var armedAt: Int?

    init(thresholdBytes: Int) {
        precondition(thresholdBytes > 0)
        self.thresholdBytes = thresholdBytes
    }

    /// A step wrote `bytes`; `steps` is the count with it. True: arm the timer.
    mutating func wrote(_ bytes: Int, steps: Int) -> Bool {
        written += bytes
        guard armedAt == nil, written >= thresholdBytes else { return false }
        armedAt = steps
        return true
    }

    /// A step let go of `bytes` of memory that lived long (a closed
    /// connection's entries in the router's tables): counted like bytes
    /// written, so that a large release is trimmed once things are quiet.
    mutating func freed(_ bytes: Int, steps: Int) -> Bool { wrote(bytes, steps: steps) }

    enum Fired: Equatable {
        /// Steps happened since: look again after another quiet period.
        case rearm
        /// None did: the burst is over.
        case trim
    }

    mutating func timerFired(steps: Int) -> Fired {
        if steps != armedAt {
            armedAt = steps
            return .rearm
        }
        armedAt = nil
        written = 0
        return .trim
    }

    /// Hands the free pages of the heap back to the kernel.
    static func releaseFreePages() {
        #if canImport(CHeapTrim)
        _ = toastd_malloc_trim()
        #endif
    }
}
