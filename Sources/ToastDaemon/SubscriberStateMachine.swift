/// The daemon's output policy for one connection, as a pure value in the
/// swift-nio style: each `mutating` method takes what happened (a line to
/// send, a write that completed, a timer that fired) and returns an action
/// that `ToastHub` carries out. It decides, and only the hub touches
/// channels, timers and the backlog.
///
/// The policy (PROTOCOL.md, section 6.5):
/// - Replies and notices to the connection itself always go out.
/// - A subscriber's events go through a bounded buffer. An event that does
///   not fit is not written: the subscriber *falls behind*, and its later
///   events are skipped too. An event always fits an empty buffer.
/// - Once its buffer has drained to half, it *catches up*: the hub offers
///   it the events it missed from the shared backlog, and it takes as many
///   as fit. With every event let out so far, it is live again.
/// - If the backlog no longer reaches back to what it missed, it is
///   *resynced*: `lagged`, then a fresh snapshot.
/// - While behind, a lag timer watches it: a subscriber that took no byte
///   for a whole period is disconnected; one that reads, however slowly,
///   is not.
/// - Writes are flushed at the end of each step, and within a step every
///   `burstFlushBytes`, so the kernel takes a burst while it is written.
/// - At shutdown a subscriber gets a `shutdown` notice before it is closed.
struct SubscriberStateMachine: Sendable, Hashable {
    struct Limits: Sendable, Hashable {
        /// Unwritten bytes a subscriber may hold before it falls behind.
        var bufferBytes: Int
        /// Unflushed bytes after which a step flushes early.
        var burstFlushBytes = 64 << 10
    }

    let limits: Limits
    /// Whether the connection subscribed (its events are bounded, and it
    /// stays open after its client half-closes).
    private(set) var isSubscriber = false
    /// Bytes written to the channel and not yet taken by the kernel.
    private(set) var pendingBytes = 0
    /// Bytes written since the last flush.
    private var unflushedBytes = 0
    /// While behind: the sequence number of the last event it was given.
    private(set) var behind: UInt64?
    /// A catch-up turn is queued on the event loop.
    private var catchUpQueued = false
    /// Bytes were taken by the kernel since the lag timer last looked.
    private var drained = false

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
        isSubscriber = true
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
        /// here on; arm the lag timer.
        case fallBehind
    }

    /// A line for this connection: `seq` for a subscriber's event (bounded),
    /// nil for a reply or a notice (always written).
    mutating func send(bytes: Int, seq: UInt64?) -> SendAction {
        if let seq {
            if behind != nil { return .skip }
            if pendingBytes > 0, pendingBytes + bytes > limits.bufferBytes {
                behind = seq - 1
                drained = false
                return .fallBehind
            }
        }
        return .write(flush: account(bytes))
    }

    /// Counts a write; true when a burst has gathered and should be flushed.
    private mutating func account(_ bytes: Int) -> Bool {
        pendingBytes += bytes
        unflushedBytes += bytes
        guard unflushedBytes >= limits.burstFlushBytes else { return false }
        unflushedBytes = 0
        return true
    }

    /// The step flushed the channel.
    mutating func flushed() {
        unflushedBytes = 0
    }

    enum WrittenAction: Equatable {
        case none
        /// Queue a catch-up turn on the loop (not from inside this flush).
        case queueCatchUp
    }

    /// The kernel took a write of `bytes`.
    mutating func written(bytes: Int) -> WrittenAction {
        pendingBytes -= bytes
        drained = true
        guard behind != nil, !catchUpQueued, pendingBytes <= limits.bufferBytes / 2 else { return .none }
        catchUpQueued = true
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
        catchUpQueued = false
        return behind.map { .readBacklog(after: $0) } ?? .none
    }

    enum ReplayAction: Equatable {
        /// Write the first `count` events offered, then flush. `live`: it
        /// has every event let out so far.
        case write(count: Int, live: Bool)
        /// The backlog lost events it missed: send `lagged` (with how many
        /// were dropped), then a snapshot, in a step of their own.
        case resync(dropped: Int)
    }

    /// The backlog's events after `behind` (`nil`: it no longer reaches
    /// back that far), as sequence numbers and sizes. `released`: the newest
    /// event let out to subscribers; later ones wait for their step.
    mutating func replay(_ missed: (some Sequence<(seq: UInt64, bytes: Int)>)?, released: UInt64) -> ReplayAction {
        guard let given = behind else { return .write(count: 0, live: true) }
        guard let missed else {
            behind = nil
            return .resync(dropped: Int(released - min(released, given)))
        }
        var count = 0
        var last = given
        var complete = true
        for entry in missed {
            guard entry.seq <= released else { break }
            guard pendingBytes == 0 || pendingBytes + entry.bytes <= limits.bufferBytes else {
                complete = false
                break
            }
            _ = account(entry.bytes)
            last = entry.seq
            count += 1
        }
        unflushedBytes = 0
        behind = complete ? nil : last
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

    mutating func lagTimerFired() -> LagAction {
        guard behind != nil else { return .none }
        guard drained else { return .disconnect }
        drained = false
        return .rearm
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
