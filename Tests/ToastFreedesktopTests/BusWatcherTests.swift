// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastFreedesktop

#if canImport(Glibc)
import Glibc
#endif

/// The watcher on a pipe standing in for the bus connection: what it
/// reports, and when it stays quiet. No test waits on the clock: deadlines
/// are either past or absent.
@Suite("The bridge's bus watcher")
struct BusWatcherTests {
    /// A pipe with a byte waiting: its read end stays readable until read.
    final class ReadablePipe {
        let read: Int32
        let write: Int32

        init() {
            var fds: [Int32] = [-1, -1]
            pipe(&fds)
            (read, write) = (fds[0], fds[1])
            var byte: UInt8 = 1
            _ = Glibc.write(write, &byte, 1)
        }

        deinit {
            close(read)
            close(write)
        }
    }

    static let readable = Int32(POLLIN)

    @Test func readinessIsReportedOnceUntilTheExecutorRearms() {
        let watcher = BusWatcher()
        let fd = ReadablePipe()
        #expect(watcher.watch(fd.read, events: Self.readable))
        #expect(watcher.wait() == .readable)
        // Still readable, but one-shot: without a re-arm only the (past)
        // deadline wakes it.
        watcher.setDeadline(BusWatcher.monotonicMicroseconds() - 1)
        #expect(watcher.wait() == .deadline)
        watcher.rearm(fd.read, events: Self.readable)
        #expect(watcher.wait() == .readable)
    }

    @Test func aDeadlineIsReportedOnce() {
        let watcher = BusWatcher()
        let fd = ReadablePipe()
        // Armed for room to write, which a pipe's read end never has.
        #expect(watcher.watch(fd.read, events: Int32(POLLOUT)))
        watcher.setDeadline(BusWatcher.monotonicMicroseconds() - 1)
        #expect(watcher.wait() == .deadline)
        // Spent: the next wait would block until the executor sets another.
        #expect(watcher.deadline == .max)
        let later = BusWatcher.monotonicMicroseconds() + 60_000_000
        watcher.setDeadline(later)
        #expect(watcher.deadline == later)
        watcher.stop()
        #expect(watcher.wait() == .stopped)
    }

    @Test func aLostConnectionIsReportedOnceAndAStopStays() {
        let watcher = BusWatcher()
        watcher.lose()
        #expect(watcher.wait() == .lost)
        watcher.setDeadline(BusWatcher.monotonicMicroseconds() - 1)
        #expect(watcher.wait() == .deadline)
        watcher.stop()
        #expect(watcher.wait() == .stopped)
        #expect(watcher.wait() == .stopped)
    }
}
