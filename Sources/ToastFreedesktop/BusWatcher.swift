// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastProtocol
import CEpoll
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Tells the bridge when its bus connection needs attention, without ever
/// touching the connection itself.
///
/// The `sd_bus` object lives on the backend's executor (toastd's event
/// loop), which runs `sd_bus_process` and answers the calls there. NIO has
/// no way to watch a foreign fd, so this watcher's thread waits for it: the
/// connection's fd is registered one-shot, so each readiness is reported
/// once, until the executor has processed it and re-armed the fd with the
/// events sd-bus wants next (`sd_bus_get_events`). sd-bus's own deadline
/// (`sd_bus_get_timeout`) is waited for the same way. Re-arming is one
/// `epoll_ctl` on the executor and wakes nobody unless the fd is ready
/// again, so a call costs one thread hand-off (this thread to the loop), not
/// the two of a bridge with a thread of its own (there and back).
final class BusWatcher: Sendable {
    enum Wake: Equatable {
        /// The connection's fd is ready (for the events it was armed with).
        case readable
        /// sd-bus's deadline passed.
        case deadline
        /// The executor closed a broken connection: connect again.
        case lost
        /// `stop()` was called.
        case stopped
    }

    private struct State {
        /// CLOCK_MONOTONIC µs, as sd-bus gives it; `.max` for none.
        var deadline = UInt64.max
        var lost = false
        var stopped = false
    }

    private static let busToken: UInt64 = 1
    private static let wakeToken: UInt64 = 0

    private let epoll: Int32
    /// A byte here wakes `wait` to look at the state again.
    private let wakeUp: (read: Int32, write: Int32)
    private let state = Mutex(State())

    init() {
        epoll = toastd_epoll_create()
        var fds: [Int32] = [-1, -1]
        pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wakeUp = (fds[0], fds[1])
        _ = toastd_epoll_set(epoll, wakeUp.read, 1, UInt32(EPOLLIN.rawValue), 0, Self.wakeToken)
    }

    deinit {
        Glibc.close(epoll)
        Glibc.close(wakeUp.read)
        Glibc.close(wakeUp.write)
    }

    /// Starts watching a new connection's fd (from the watcher's thread).
    func watch(_ fd: Int32, events: Int32) -> Bool {
        toastd_epoll_set(epoll, fd, 1, UInt32(bitPattern: events), 1, Self.busToken) == 0
    }

    /// Re-arms the fd for `events` (from the executor, after processing).
    func rearm(_ fd: Int32, events: Int32) {
        _ = toastd_epoll_set(epoll, fd, 0, UInt32(bitPattern: events), 1, Self.busToken)
    }

    /// sd-bus's next deadline (`.max` for none). Only an earlier one wakes
    /// the thread; a later one costs at most one early, empty turn.
    func setDeadline(_ microseconds: UInt64) {
        let earlier = state.withLock { state in
            defer { state.deadline = microseconds }
            return microseconds < state.deadline
        }
        if earlier { poke() }
    }

    /// The deadline it waits for (`.max`: none).
    var deadline: UInt64 { state.withLock { $0.deadline } }

    /// The executor has closed the connection (the bus went away).
    func lose() {
        state.withLock { $0.lost = true }
        poke()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        poke()
    }

    /// Blocks the watcher's thread until the connection needs attention.
    func wait() -> Wake {
        while true {
            let (deadline, wake) = state.withLock { state -> (UInt64, Wake?) in
                if state.stopped { return (state.deadline, .stopped) }
                if state.lost {
                    state.lost = false
                    state.deadline = .max
                    return (state.deadline, .lost)
                }
                return (state.deadline, nil)
            }
            if let wake { return wake }
            let now = Self.monotonicMicroseconds()
            let timeout = deadline == .max ? -1 : deadline <= now ? 0 : Int32(clamping: (deadline - now + 999) / 1_000)
            var token: UInt64 = 0
            let ready = toastd_epoll_wait(epoll, timeout, &token)
            if ready == 1 && token == Self.busToken { return .readable }
            if ready == 1 {
                drain()
            } else if ready == 0 && Self.monotonicMicroseconds() >= deadline {
                // Reported once; the executor sets the next one (unless it
                // already has).
                state.withLock { if $0.deadline == deadline { $0.deadline = .max } }
                return .deadline
            } else if ready < 0 && errno != EINTR {
                return .stopped
            }
        }
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wakeUp.write, &byte, 1)
    }

    private func drain() {
        var bytes = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(wakeUp.read, $0.baseAddress, $0.count) }) == 16 {}
    }

    static func monotonicMicroseconds() -> UInt64 { monotonicNanoseconds() / 1_000 }
}
