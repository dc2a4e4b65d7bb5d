// SPDX-License-Identifier: Apache-2.0
/// The daemon's output policy for one connection, as a pure value in the
/// swift-nio style: each `mutating` method takes what happened (a line to
/// send, a buffer that drained, a timer that fired) and returns an action
/// that `ToastHub` carries out. It decides, and only the hub touches
/// channels, timers and the backlog.
///
/// The policy (PROTOCOL.md, section 6.5):
/// - Replies and notices to the connection itself always go out.
/// - A subscriber's events go through a bounded buffer. An event that does
///   not fit is not written: the subscriber *falls behind*, and its later
///   events are skipped too. An event always fits an empty buffer.
/// - Once the kernel has taken what was written before it fell behind, it
///   *catches up*: the hub offers it the events it missed from the shared
///   backlog, and it takes as many as fit. With every event let out so far,
///   it is live again.
/// - If the backlog no longer reaches back to what it missed, it is
///   *resynced*: `lagged`, then a fresh snapshot.
/// - While behind, a lag timer watches it: a subscriber that took no byte
///   for a whole period is disconnected; one that reads, however slowly,
///   is not.
/// - Writes are flushed at the end of each step, and within a step every
///   `burstFlushBytes`, so the kernel takes a burst while it is written.
/// - At shutdown a subscriber gets a `shutdown` notice before it is closed.
///
/// How full the buffer is comes from the channel itself (`buffered`, which
/// the hub answers from the channel's count of unwritten bytes), and only
/// when it matters: the machine keeps an upper bound (what was measured
/// last, plus every write since), and asks only when an event would not
/// fit under that bound. A live subscriber whose reader keeps up is asked
/// about once a buffer's worth of bytes. (Each write used to carry a promise
/// that counted it off when the kernel took it: at 128 subscribers that was
/// two fifths of the daemon's instructions per subscriber and event.)
struct SubscriberStateMachine: Sendable, Hashable {
    struct Limits: Sendable, Hashable {
        /// Unwritten bytes a subscriber may hold before it falls behind.
        var bufferBytes: Int
        /// Unflushed bytes after which a step flushes early.
        var burstFlushBytes = 64 << 10
    }

    let limits: Limits

    /// Where the connection stands: a plain client, a subscriber keeping
    /// up, or one behind, with what only a subscriber behind has. An enum,
    /// so that a state the policy has no rule for cannot be written down
    /// (the six flags it replaced allowed a lag look on a live subscriber,
    /// or a queued catch-up on a plain client).
    enum Mode: Sendable, Hashable {
        /// Not a subscriber: replies and notices only.
        case plain
        /// A subscriber given every event so far.
        case live
        /// A subscriber that fell behind.
        case behind(Behind)
    }

    struct Behind: Sendable, Hashable {
        /// The sequence number of the last event it was given.
        var given: UInt64
        /// A catch-up turn is queued on the event loop.
        var catchUpQueued = false
        /// What the channel held when the lag timer last looked (or when
        /// it fell behind), and the bytes written since.
        var lastLook: Int
        var writtenSinceLook = 0
        /// The buffer drained since the lag timer last looked.
        var drainedSinceLook = false
    }

    private(set) var mode = Mode.plain
    /// At least the bytes written to the channel and not yet taken by the
    /// kernel: exact when measured, then every write added to it.
    private(set) var pendingBound = 0
    /// Bytes written since the last flush.
    private var unflushedBytes = 0

    /// Whether the connection subscribed (its events are bounded, and it
    /// stays open after its client half-closes).
    var isSubscriber: Bool { mode != .plain }

    /// While behind: the sequence number of the last event it was given.
    var behind: UInt64? {
        if case .behind(let state) = mode { return state.given }
        return nil
    }

    /// Changes the state of a subscriber behind; nothing otherwise.
    private mutating func whileBehind(_ change: (inout Behind) -> Void) {
        guard case .behind(var state) = mode else { return }
        change(&state)
        mode = .behind(state)
    }

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: - Directives

    enum SubscribeAction: Equatable {
        /// Send the subscription's reply and the lines that follow it (a
        /// snapshot or the missed events), unbounded: they are its start.
        case sendSubscription
    }

    mutating func subscribed() -> SubscribeAction {
        if mode == .plain { mode = .live }
        return .sendSubscription
    }

    /// Whether the connection wants output after its client stopped sending.
    var keepsOutputOpen: Bool { isSubscriber }

    // MARK: - Writes

    enum SendAction: Equatable {
        /// Write the bytes; `flush`: a burst has gathered, flush now.
        case write(flush: Bool)
        /// Do not write: the subscriber is behind and gets it from the backlog.
        case skip
        /// Do not write: the buffer is full. The subscriber is behind from
        /// here on: arm the lag timer, and watch for the channel to drain
        /// what it holds (then call `drained`).
        case fallBehind
    }

    /// A line for this connection: `seq` for a subscriber's event (bounded),
    /// nil for a reply or a notice (always written). `buffered` tells how many
    /// bytes the channel holds unwritten; it is asked only when the event
    /// would not fit under the bound.
    mutating func send(bytes: Int, seq: UInt64?, buffered: () -> Int) -> SendAction {
        if let seq {
            if case .behind = mode { return .skip }
            if !fits(bytes) {
                pendingBound = buffered()
                if !fits(bytes) {
                    mode = .behind(Behind(given: seq - 1, lastLook: pendingBound))
                    return .fallBehind
                }
            }
        }
        return .write(flush: account(bytes))
    }

    /// Whether an event fits under the bound: an empty buffer takes any.
    private func fits(_ bytes: Int) -> Bool {
        pendingBound == 0 || pendingBound + bytes <= limits.bufferBytes
    }

    /// Counts a write; true when a burst has gathered and should be flushed.
    private mutating func account(_ bytes: Int) -> Bool {
        pendingBound += bytes
        if case .behind = mode { whileBehind { $0.writtenSinceLook += bytes } }
        unflushedBytes += bytes
        guard unflushedBytes >= limits.burstFlushBytes else { return false }
        unflushedBytes = 0
        return true
    }

    /// The step flushed the channel.
    mutating func flushed() {
        unflushedBytes = 0
    }

    enum DrainedAction: Equatable {
        case none
        /// Queue a catch-up turn on the loop (not from inside this flush).
        case queueCatchUp
    }

    /// The kernel took everything written before the subscriber fell behind
    /// (or before a catch-up left it behind); the channel now holds `buffered`.
    mutating func drained(buffered: Int) -> DrainedAction {
        pendingBound = buffered
        guard case .behind(var state) = mode else { return .none }
        state.drainedSinceLook = true
        defer { mode = .behind(state) }
        guard !state.catchUpQueued else { return .none }
        state.catchUpQueued = true
        return .queueCatchUp
    }

    // MARK: - Catching up

    enum CatchUpAction: Equatable {
        case none
        /// Offer `replay` the backlog's events after this sequence number.
        case readBacklog(after: UInt64)
    }

    /// The queued catch-up turn runs.
    mutating func catchUpTurn() -> CatchUpAction {
        guard case .behind(var state) = mode else { return .none }
        state.catchUpQueued = false
        mode = .behind(state)
        return .readBacklog(after: state.given)
    }

    enum ReplayAction: Equatable {
        /// Write the first `count` events offered, then flush. `live`: it
        /// has every event let out so far; if not, watch for the channel to
        /// drain again (then call `drained`).
        case write(count: Int, live: Bool)
        /// The backlog lost events it missed: send `lagged` (with how many
        /// were dropped), then a snapshot, in a step of their own.
        case resync(dropped: Int)
    }

    /// The backlog's events after `behind` (`nil`: it no longer reaches
    /// back that far), as sequence numbers and sizes. `released`: the newest
    /// event let out to subscribers; later ones wait for their step.
    /// `buffered`: what the channel holds unwritten now.
    mutating func replay(
        _ missed: (some Sequence<(seq: UInt64, bytes: Int)>)?, released: UInt64, buffered: () -> Int
    ) -> ReplayAction {
        guard let given = behind else { return .write(count: 0, live: true) }
        pendingBound = buffered()
        guard let missed else {
            mode = .live
            return .resync(dropped: Int(released - min(released, given)))
        }
        var count = 0
        var last = given
        var complete = true
        for entry in missed {
            guard entry.seq <= released else { break }
            guard fits(entry.bytes) else {
                complete = false
                break
            }
            _ = account(entry.bytes)
            last = entry.seq
            count += 1
        }
        unflushedBytes = 0
        if complete {
            mode = .live
        } else {
            whileBehind { $0.given = last }
        }
        return .write(count: count, live: complete)
    }

    // MARK: - Lag

    enum LagAction: Equatable {
        case none
        /// It read since the timer was armed: watch another period.
        case rearm
        /// It took nothing for a whole period: close the connection.
        case disconnect
    }

    /// `buffered`: what the channel holds unwritten now. It took bytes if it
    /// holds less than it did at the last look plus what was written since.
    mutating func lagTimerFired(buffered: () -> Int) -> LagAction {
        guard case .behind(var state) = mode else { return .none }
        let now = buffered()
        let tookBytes = state.drainedSinceLook || now < state.lastLook + state.writtenSinceLook
        state.lastLook = now
        state.writtenSinceLook = 0
        state.drainedSinceLook = false
        mode = .behind(state)
        return tookBytes ? .rearm : .disconnect
    }

    // MARK: - Shutdown

    enum ShutdownAction: Equatable {
        /// Write the `shutdown` notice, then close once written.
        case notifyThenClose
        /// Close once what is written is flushed.
        case close
    }

    func shutdown() -> ShutdownAction {
        isSubscriber ? .notifyThenClose : .close
    }
}
