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

    @Test func eventsThatFitAreWrittenAndTheOneThatDoesNotMakesItFallBehind() {
        var machine = Self.subscriber()
        #expect(machine.send(bytes: 400, seq: 1) == .write(flush: false))
        #expect(machine.send(bytes: 400, seq: 2) == .write(flush: false))
        #expect(machine.send(bytes: 400, seq: 3) == .fallBehind)
        #expect(machine.behind == 2, "it was given up to 2")
        // Later events are skipped, however small: order is kept by the backlog.
        #expect(machine.send(bytes: 1, seq: 4) == .skip)
        #expect(machine.pendingBytes == 800)
    }

    @Test func anEventLargerThanTheBufferStillFitsAnEmptyBuffer() {
        var machine = Self.subscriber(buffer: 100)
        #expect(machine.send(bytes: 5_000, seq: 1) == .write(flush: false))
        #expect(machine.send(bytes: 10, seq: 2) == .fallBehind)
    }

    @Test func repliesAndNoticesBypassTheBound() {
        var machine = Self.subscriber(buffer: 100)
        #expect(machine.send(bytes: 90, seq: 1) == .write(flush: false))
        #expect(machine.send(bytes: 500, seq: nil) == .write(flush: false))
        #expect(machine.send(bytes: 20, seq: 2) == .fallBehind)
        #expect(machine.send(bytes: 20, seq: nil) == .write(flush: false), "a reply goes out even while behind")
    }

    @Test func aBurstIsFlushedAsItGathers() {
        var machine = SubscriberStateMachine(limits: .init(bufferBytes: 1 << 20, burstFlushBytes: 1_000))
        #expect(machine.send(bytes: 600, seq: nil) == .write(flush: false))
        #expect(machine.send(bytes: 600, seq: nil) == .write(flush: true))
        #expect(machine.send(bytes: 600, seq: nil) == .write(flush: false))
        machine.flushed()
        #expect(machine.send(bytes: 600, seq: nil) == .write(flush: false), "a step's flush starts the count again")
    }

    @Test func itCatchesUpOnceItsBufferDrainsToHalf() {
        var machine = Self.subscriber()
        _ = machine.send(bytes: 400, seq: 1)
        _ = machine.send(bytes: 400, seq: 2)
        #expect(machine.send(bytes: 400, seq: 3) == .fallBehind)
        #expect(machine.written(bytes: 200) == .none, "600 pending: more than half")
        #expect(machine.written(bytes: 200) == .queueCatchUp)
        #expect(machine.written(bytes: 100) == .none, "one turn is queued at a time")
        #expect(machine.catchUpTurn() == .readBacklog(after: 2))
        let missed: [(seq: UInt64, bytes: Int)] = [(3, 400), (4, 400), (5, 400)]
        // 300 pending: 3 and 4 fit (1,100 would not), so it stays behind at 4.
        #expect(machine.replay(missed, released: 5) == .write(count: 1, live: false))
        #expect(machine.behind == 3)
        #expect(machine.pendingBytes == 700)
        #expect(machine.written(bytes: 700) == .queueCatchUp)
        #expect(machine.catchUpTurn() == .readBacklog(after: 3))
        #expect(machine.replay(Array(missed.dropFirst()), released: 5) == .write(count: 2, live: true))
        #expect(machine.behind == nil)
        #expect(machine.send(bytes: 10, seq: 6) == .write(flush: false), "live again")
    }

    @Test func eventsNotYetLetOutWaitForTheirStep() {
        var machine = Self.subscriber(buffer: 100)
        _ = machine.send(bytes: 100, seq: 1)
        _ = machine.send(bytes: 10, seq: 2)
        _ = machine.written(bytes: 100)
        #expect(machine.catchUpTurn() == .readBacklog(after: 1))
        // Event 3 is published but its step is not committed yet: it is not
        // replayed; the subscriber is live, and gets it when the step lets it out.
        #expect(machine.replay([(seq: UInt64(2), bytes: 10), (seq: 3, bytes: 10)], released: 2) == .write(count: 1, live: true))
        #expect(machine.behind == nil)
        #expect(machine.send(bytes: 10, seq: 3) == .write(flush: false))
    }

    @Test func aLostBacklogMeansLaggedAndASnapshot() {
        var machine = Self.subscriber(buffer: 100)
        _ = machine.send(bytes: 100, seq: 7)
        #expect(machine.send(bytes: 10, seq: 8) == .fallBehind)
        _ = machine.written(bytes: 100)
        #expect(machine.catchUpTurn() == .readBacklog(after: 7))
        #expect(machine.replay(nil as [(seq: UInt64, bytes: Int)]?, released: 50) == .resync(dropped: 43))
        #expect(machine.behind == nil)
        #expect(machine.catchUpTurn() == .none)
    }

    @Test func theLagTimerSparesAReaderAndDropsAStalledOne() {
        var machine = Self.subscriber(buffer: 100)
        #expect(machine.lagTimerFired() == .none, "not behind: nothing to watch")
        _ = machine.send(bytes: 100, seq: 1)
        _ = machine.send(bytes: 100, seq: 2)
        #expect(machine.lagTimerFired() == .disconnect, "took nothing since it fell behind")

        var reader = Self.subscriber(buffer: 100)
        _ = reader.send(bytes: 100, seq: 1)
        _ = reader.send(bytes: 100, seq: 2)
        _ = reader.written(bytes: 10)
        #expect(reader.lagTimerFired() == .rearm, "slow, but reading")
        #expect(reader.lagTimerFired() == .disconnect, "then nothing for a whole period")
    }

    @Test func shutdownNotifiesSubscribersOnly() {
        #expect(Self.subscriber().shutdown() == .notifyThenClose)
        let plain = SubscriberStateMachine(limits: .init(bufferBytes: 100))
        #expect(plain.shutdown() == .close)
        #expect(!plain.keepsOutputOpen && Self.subscriber().keepsOutputOpen)
    }

    /// Random sends, completions and turns: the pending count never goes
    /// negative, a live subscriber's events never overflow the buffer
    /// (except into an empty one), and nothing is replayed twice.
    @Test func randomTrafficKeepsTheBounds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var machine = Self.subscriber(buffer: 500)
            var inFlight: [Int] = []
            var seq: UInt64 = 0
            var given: UInt64 = 0
            for _ in 0..<200 {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    seq += 1
                    let size = Int.random(in: 1...300, using: &generator)
                    let before = machine.pendingBytes
                    if case .write = machine.send(bytes: size, seq: seq) {
                        #expect(before == 0 || before + size <= 500)
                        #expect(seq == given + 1, "in order, none skipped")
                        given = seq
                        inFlight.append(size)
                    }
                case 2:
                    if !inFlight.isEmpty { _ = machine.written(bytes: inFlight.removeFirst()) }
                default:
                    if case .readBacklog(let after) = machine.catchUpTurn() {
                        #expect(after == given)
                        let missed = (after + 1...max(after + 1, seq)).filter { $0 <= seq }.map { (seq: $0, bytes: 50) }
                        if case .write(let count, _) = machine.replay(missed, released: seq) {
                            given += UInt64(count)
                            inFlight += Array(repeating: 50, count: count)
                        }
                    }
                }
                #expect(machine.pendingBytes == inFlight.reduce(0, +))
            }
        }
    }
}
