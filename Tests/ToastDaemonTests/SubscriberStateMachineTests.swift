// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastDaemon

/// The output policy of one connection, without a socket: what it writes,
/// skips, replays and resyncs, and when it gives up on a reader.
@Suite("Subscriber state machine")
struct SubscriberStateMachineTests {
    static func subscriber(buffer: Int = 1_000, burst: Int = 64 << 10) -> SubscriberStateMachine {
        var machine = SubscriberStateMachine(limits: .init(bufferBytes: buffer, burstFlushBytes: burst))
        #expect(machine.subscribed() == .sendSubscription)
        return machine
    }

    /// A channel as the machine sees it: the bytes it holds unwritten, and
    /// how often the machine asked.
    final class Channel {
        var buffered = 0
        var asked = 0
        func measure() -> Int {
            asked += 1
            return buffered
        }
    }

    /// The connection's state is one of three, and what only a subscriber
    /// behind has (its lag look, its queued catch-up) lives in that state.
    @Test func theModeGoesPlainLiveBehindAndLiveAgain() {
        var machine = SubscriberStateMachine(limits: .init(bufferBytes: 100))
        #expect(machine.mode == .plain && !machine.keepsOutputOpen)
        #expect(machine.drained(buffered: 0) == .none, "a plain client queues no catch-up")
        _ = machine.subscribed()
        #expect(machine.mode == .live && machine.keepsOutputOpen)
        #expect(machine.send(bytes: 80, seq: 1, buffered: { 80 }) == .write(flush: false))
        #expect(machine.send(bytes: 80, seq: 2, buffered: { 80 }) == .fallBehind)
        #expect(machine.mode == .behind(.init(given: 1, lastLook: 80)))
        #expect(machine.drained(buffered: 0) == .queueCatchUp)
        #expect(machine.drained(buffered: 0) == .none, "one catch-up turn at a time")
        #expect(machine.catchUpTurn() == .readBacklog(after: 1))
        #expect(machine.replay([(seq: 2, bytes: 80)], released: 2, buffered: { 0 }) == .write(count: 1, live: true))
        #expect(machine.mode == .live)
        #expect(machine.lagTimerFired(buffered: { 0 }) == .none, "a live subscriber has no lag look")
    }

    @Test func eventsThatFitAreWrittenAndTheOneThatDoesNotMakesItFallBehind() {
        var machine = Self.subscriber()
        let channel = Channel()
        #expect(machine.send(bytes: 400, seq: 1, buffered: channel.measure) == .write(flush: false))
        #expect(machine.send(bytes: 400, seq: 2, buffered: channel.measure) == .write(flush: false))
        #expect(channel.asked == 0, "under the bound, the channel is not asked")
        channel.buffered = 800
        #expect(machine.send(bytes: 400, seq: 3, buffered: channel.measure) == .fallBehind)
        #expect(channel.asked == 1)
        #expect(machine.behind == 2, "it was given up to 2")
        // Later events are skipped, however small: order is kept by the backlog.
        #expect(machine.send(bytes: 1, seq: 4, buffered: channel.measure) == .skip)
        #expect(machine.pendingBound == 800)
    }

    /// The bound is an upper bound: when the channel says the kernel took
    /// the bytes, the event fits, and the bound starts again from what it said.
    @Test func aBoundOverTheLimitIsCheckedAgainstTheChannel() {
        var machine = Self.subscriber()
        let channel = Channel()
        for seq in 1...2 { _ = machine.send(bytes: 400, seq: UInt64(seq), buffered: channel.measure) }
        channel.buffered = 150
        #expect(machine.send(bytes: 400, seq: 3, buffered: channel.measure) == .write(flush: false))
        #expect(channel.asked == 1)
        #expect(machine.pendingBound == 550, "what the channel held, and this event")
        #expect(machine.send(bytes: 400, seq: 4, buffered: channel.measure) == .write(flush: false))
        #expect(channel.asked == 1, "950 is under the bound: not asked")
        // Only the bound crossing the limit asks: a reader that keeps up is
        // asked about once a buffer's worth of bytes.
        channel.buffered = 0
        for seq in 5...104 { #expect(machine.send(bytes: 100, seq: UInt64(seq), buffered: channel.measure) == .write(flush: false)) }
        #expect(channel.asked == 11)
    }

    @Test func anEventLargerThanTheBufferStillFitsAnEmptyBuffer() {
        var machine = Self.subscriber(buffer: 100)
        let channel = Channel()
        #expect(machine.send(bytes: 5_000, seq: 1, buffered: channel.measure) == .write(flush: false))
        channel.buffered = 5_000
        #expect(machine.send(bytes: 10, seq: 2, buffered: channel.measure) == .fallBehind)
    }

    @Test func repliesAndNoticesBypassTheBound() {
        var machine = Self.subscriber(buffer: 100)
        let channel = Channel()
        #expect(machine.send(bytes: 90, seq: 1, buffered: channel.measure) == .write(flush: false))
        #expect(machine.send(bytes: 500, seq: nil, buffered: channel.measure) == .write(flush: false))
        channel.buffered = 590
        #expect(machine.send(bytes: 20, seq: 2, buffered: channel.measure) == .fallBehind)
        #expect(machine.send(bytes: 20, seq: nil, buffered: channel.measure) == .write(flush: false), "a reply goes out even while behind")
        #expect(channel.asked == 1, "a reply never asks")
    }

    @Test func aBurstIsFlushedAsItGathers() {
        var machine = SubscriberStateMachine(limits: .init(bufferBytes: 1 << 20, burstFlushBytes: 1_000))
        #expect(machine.send(bytes: 600, seq: nil, buffered: { 0 }) == .write(flush: false))
        #expect(machine.send(bytes: 600, seq: nil, buffered: { 0 }) == .write(flush: true))
        #expect(machine.send(bytes: 600, seq: nil, buffered: { 0 }) == .write(flush: false))
        machine.flushed()
        #expect(machine.send(bytes: 600, seq: nil, buffered: { 0 }) == .write(flush: false), "a step's flush starts the count again")
    }

    @Test func itCatchesUpOnceWhatItHeldIsTaken() {
        var machine = Self.subscriber()
        let channel = Channel()
        _ = machine.send(bytes: 400, seq: 1, buffered: channel.measure)
        _ = machine.send(bytes: 400, seq: 2, buffered: channel.measure)
        channel.buffered = 800
        #expect(machine.send(bytes: 400, seq: 3, buffered: channel.measure) == .fallBehind)
        #expect(machine.drained(buffered: 300) == .queueCatchUp, "a reply written after it fell behind is still held")
        #expect(machine.drained(buffered: 0) == .none, "one turn is queued at a time")
        #expect(machine.catchUpTurn() == .readBacklog(after: 2))
        let missed: [(seq: UInt64, bytes: Int)] = [(3, 400), (4, 400), (5, 400)]
        // 300 held: 3 and 4 fit (1,100 would not), so it stays behind at 3.
        channel.buffered = 300
        #expect(machine.replay(missed, released: 5, buffered: channel.measure) == .write(count: 1, live: false))
        #expect(machine.behind == 3)
        #expect(machine.pendingBound == 700)
        #expect(machine.drained(buffered: 0) == .queueCatchUp)
        #expect(machine.catchUpTurn() == .readBacklog(after: 3))
        channel.buffered = 0
        #expect(machine.replay(Array(missed.dropFirst()), released: 5, buffered: channel.measure) == .write(count: 2, live: true))
        #expect(machine.behind == nil)
        #expect(machine.send(bytes: 10, seq: 6, buffered: channel.measure) == .write(flush: false), "live again")
    }

    @Test func eventsNotYetLetOutWaitForTheirStep() {
        var machine = Self.subscriber(buffer: 100)
        _ = machine.send(bytes: 100, seq: 1, buffered: { 0 })
        _ = machine.send(bytes: 10, seq: 2, buffered: { 100 })
        _ = machine.drained(buffered: 0)
        #expect(machine.catchUpTurn() == .readBacklog(after: 1))
        // Event 3 is published but its step is not committed yet: it is not
        // replayed; the subscriber is live, and gets it when the step lets it out.
        #expect(machine.replay([(seq: UInt64(2), bytes: 10), (seq: 3, bytes: 10)], released: 2, buffered: { 0 }) == .write(count: 1, live: true))
        #expect(machine.behind == nil)
        #expect(machine.send(bytes: 10, seq: 3, buffered: { 10 }) == .write(flush: false))
    }

    @Test func aLostBacklogMeansLaggedAndASnapshot() {
        var machine = Self.subscriber(buffer: 100)
        _ = machine.send(bytes: 100, seq: 7, buffered: { 0 })
        #expect(machine.send(bytes: 10, seq: 8, buffered: { 100 }) == .fallBehind)
        _ = machine.drained(buffered: 0)
        #expect(machine.catchUpTurn() == .readBacklog(after: 7))
        #expect(machine.replay(nil as [(seq: UInt64, bytes: Int)]?, released: 50, buffered: { 0 }) == .resync(dropped: 43))
        #expect(machine.behind == nil)
        #expect(machine.catchUpTurn() == .none)
    }

    /// A subscriber with a buffer of 100 that fell behind holding 100 bytes.
    static func behind(_ channel: Channel) -> SubscriberStateMachine {
        var machine = subscriber(buffer: 100)
        channel.buffered = 0
        _ = machine.send(bytes: 100, seq: 1, buffered: channel.measure)
        channel.buffered = 100
        #expect(machine.send(bytes: 100, seq: 2, buffered: channel.measure) == .fallBehind)
        return machine
    }

    @Test func theLagTimerSparesAReaderAndDropsAStalledOne() {
        let channel = Channel()
        var live = Self.subscriber()
        #expect(live.lagTimerFired(buffered: channel.measure) == .none, "not behind: nothing to watch")
        var stalled = Self.behind(channel)
        #expect(stalled.lagTimerFired(buffered: channel.measure) == .disconnect, "took nothing since it fell behind")

        var reader = Self.behind(channel)
        channel.buffered = 90
        #expect(reader.lagTimerFired(buffered: channel.measure) == .rearm, "slow, but reading")
        #expect(reader.lagTimerFired(buffered: channel.measure) == .disconnect, "then nothing for a whole period")

        // A reply written while behind is not progress; taking bytes is, and so is a drain.
        var replied = Self.behind(channel)
        _ = replied.send(bytes: 50, seq: nil, buffered: channel.measure)
        channel.buffered = 150
        #expect(replied.lagTimerFired(buffered: channel.measure) == .disconnect)
        var readsAndAsks = Self.behind(channel)
        _ = readsAndAsks.send(bytes: 50, seq: nil, buffered: channel.measure)
        channel.buffered = 120
        #expect(readsAndAsks.lagTimerFired(buffered: channel.measure) == .rearm, "it took 30 of the 150")
        var drained = Self.behind(channel)
        _ = drained.drained(buffered: 0)
        _ = drained.send(bytes: 100, seq: nil, buffered: channel.measure)
        channel.buffered = 100
        #expect(drained.lagTimerFired(buffered: channel.measure) == .rearm)
    }

    @Test func shutdownNotifiesSubscribersOnly() {
        #expect(Self.subscriber().shutdown() == .notifyThenClose)
        let plain = SubscriberStateMachine(limits: .init(bufferBytes: 100))
        #expect(plain.shutdown() == .close)
        #expect(!plain.keepsOutputOpen && Self.subscriber().keepsOutputOpen)
    }

    /// Random sends, a kernel that takes random amounts, drains and turns,
    /// against a model channel: a live subscriber's events never overflow the
    /// buffer (except into an empty one), the bound never falls below what
    /// the channel holds, and nothing is skipped or replayed twice.
    @Test func randomTrafficKeepsTheBounds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var machine = Self.subscriber(buffer: 500)
            let channel = Channel()
            /// Bytes written before the drain watch, still held.
            var watched: Int?
            var seq: UInt64 = 0
            var given: UInt64 = 0
            func take(_ bytes: Int) {
                channel.buffered -= bytes
                if let held = watched {
                    watched = max(0, held - bytes)
                }
            }
            for _ in 0..<200 {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    seq += 1
                    let size = Int.random(in: 1...300, using: &generator)
                    let before = channel.buffered
                    switch machine.send(bytes: size, seq: seq, buffered: channel.measure) {
                    case .write:
                        #expect(before == 0 || before + size <= 500)
                        #expect(seq == given + 1, "in order, none skipped")
                        given = seq
                        channel.buffered += size
                    case .fallBehind:
                        #expect(before > 0 && before + size > 500, "it fell behind with room left")
                        watched = channel.buffered
                    case .skip:
                        #expect(machine.behind != nil)
                    }
                case 2:
                    take(Int.random(in: 0...channel.buffered, using: &generator))
                    if watched == 0 {
                        watched = nil
                        _ = machine.drained(buffered: channel.buffered)
                    }
                default:
                    if case .readBacklog(let after) = machine.catchUpTurn() {
                        #expect(after == given)
                        let missed = (after + 1...max(after + 1, seq)).filter { $0 <= seq }.map { (seq: $0, bytes: 50) }
                        if case .write(let count, let live) = machine.replay(missed, released: seq, buffered: channel.measure) {
                            given += UInt64(count)
                            channel.buffered += 50 * count
                            if !live { watched = channel.buffered }
                        }
                    }
                }
                #expect(machine.pendingBound >= channel.buffered)
            }
        }
    }
}
