// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
import ToastCore

@testable import ToastDaemon
@testable import ToastStore

/// Durable steps on a real event loop, with a real store and commit thread.
@Suite("Durable steps")
struct StatePersistenceTests {
    /// A new state directory's name, under the temporary directory.
    static func directory(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appending(path: "toastd-\(name)-\(UUID().uuidString.prefix(8))").path
    }

    /// A durable `StatePersistence` over a new store in `directory`.
    static func persistence(in directory: String, on loop: any EventLoop) throws -> (ToastStore, StatePersistence) {
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        return (store, StatePersistence(storage: .durable(store, loaded), loop: loop, logger: Logger(label: "test")))
    }

    /// Reads `read` every 10 ms until `done` holds of it, for up to 5 s;
    /// its last value (what the commit thread had done by then).
    static func eventually<T>(_ read: () async throws -> T, _ done: (T) -> Bool) async throws -> T {
        var value = try await read()
        for _ in 0..<500 where !done(value) {
            try await Task.sleep(for: .milliseconds(10))
            value = try await read()
        }
        return value
    }

    /// `count` adds, each a step of its own with nothing to write, on `loop`.
    static func addSteps(_ prefix: String, count: Int, _ persistence: StatePersistence, on loop: NIOAsyncTestingEventLoop) async throws {
        try await loop.submit {
            var service = ToastService(instance: "i")
            for index in 0..<count {
                add("\(prefix)\(index)", &service, persistence)
                persistence.endStep(service.scheduler, prepare: {}) {}
            }
        }.get()
    }

    /// Answers an add of `message` and notes what it published (the step is not ended).
    static func add(_ message: String, _ service: inout ToastService, _ persistence: StatePersistence) {
        let line = Array(#"{"op":"add","toast":{"message":"\#(message)"}}"#.utf8)
        let response = service.respond(toLine: line, defaultSource: nil, now: 0)
        for publication in service.publish(response.effects) {
            persistence.note(publication.event, waiting: publication.waiting)
        }
    }

    /// Steps too large to commit on the loop go to the commit thread one
    /// after another. Their writes go out in the order of the steps, each
    /// once its changes are in the file, and a step without changes waits
    /// for the steps before it.
    @Test func writesGoOutInStepOrderEachAfterItsCommit() throws {
        let directory = Self.directory("steps")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let (store, persistence) = try Self.persistence(in: directory, on: loop)
        defer { try? loop.flatSubmit { persistence.shutdown() }.wait() }
        let rowsPerStep = StatePersistence.inlineChanges + 1
        // Each step's writes are prepared (encoded) and then delivered; a
        // preparation notes its step, how many toast rows the file held
        // then, and whether it ran on the loop.
        struct Prepared: Sendable {
            var step: Int
            var rows: Int
            var onLoop: Bool
        }
        let delivered = Mutex<[Prepared]>([])
        @Sendable func prepare(_ step: Int) -> @Sendable () -> Prepared {
            { Prepared(step: step, rows: (try? store.storedRows().count) ?? -1, onLoop: loop.inEventLoop) }
        }
        @Sendable func deliver(_ prepared: Prepared) { delivered.withLock { $0.append(prepared) } }
        // Every step ends in one turn of the loop: the first one's commit
        // is still on the commit thread when the others end, so they queue.
        try loop.submit {
            var service = ToastService(instance: "i")
            for step in 0..<10 {
                for index in 0..<rowsPerStep { Self.add("s\(step)-\(index)", &service, persistence) }
                persistence.endStep(service.scheduler, prepare: prepare(step), deliver: deliver)
            }
            persistence.endStep(service.scheduler, prepare: prepare(10), deliver: deliver)
        }.wait()
        try loop.flatSubmit { persistence.idle }.wait()
        let deliveries = delivered.withLock { $0 }
        #expect(deliveries.map(\.step) == Array(0...10))
        for delivery in deliveries {
            #expect(delivery.rows >= min(delivery.step + 1, 10) * rowsPerStep, "step \(delivery.step) was prepared before its commit")
        }
        // The ten steps with rows were committed, and their writes
        // prepared, on the commit thread; the last, with nothing to commit,
        // on the loop once the others were out.
        #expect(deliveries.map(\.onLoop) == Array(repeating: false, count: 10) + [true])
    }

    /// In memory (`--ephemeral`), a step with more writes than a small one
    /// has them encoded on the commit thread, as a durable burst's are
    /// after its commit, and so has a smaller step that ends meanwhile; a
    /// step with nothing to write waits its turn on the loop; and once
    /// nothing waits, a small step's writes leave at once.
    @Test func inMemoryABurstsWritesAreEncodedOffTheLoopInStepOrder() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let persistence = StatePersistence(storage: .ephemeral, loop: loop, logger: Logger(label: "test"))
        defer { try? loop.flatSubmit { persistence.shutdown() }.wait() }
        struct Prepared: Sendable {
            var step: Int
            var onLoop: Bool
        }
        let delivered = Mutex<[Prepared]>([])
        @Sendable func prepare(_ step: Int) -> @Sendable () -> Prepared { { Prepared(step: step, onLoop: loop.inEventLoop) } }
        @Sendable func deliver(_ prepared: Prepared) { delivered.withLock { $0.append(prepared) } }
        let burst = PersistenceStateMachine.inlineChanges + 1
        let service = ToastService(instance: "i")
        // All in one turn of the loop: bursts and small steps in turn.
        try loop.submit {
            for step in 0..<8 {
                persistence.endStep(service.scheduler, writes: [burst, 1, 0, burst, 0, 1, 1, 0][step], prepare: prepare(step), deliver: deliver)
            }
        }.wait()
        try loop.flatSubmit { persistence.idle }.wait()
        let deliveries = delivered.withLock { $0 }
        #expect(deliveries.map(\.step) == Array(0..<8))
        #expect(deliveries.map(\.onLoop) == [false, false, true, false, true, false, false, true])
        // Nothing waits now: a small step leaves within `endStep`.
        let atOnce = try loop.submit {
            persistence.endStep(service.scheduler, writes: 1, prepare: prepare(8), deliver: deliver)
            return delivered.withLock { $0.last?.step }
        }.wait()
        #expect(atOnce == 8)
    }

    /// Small steps are made durable on the loop, in the journal, and their
    /// writes go out at once, before the database has them; the 64th step
    /// hands all 64 to the commit thread, which puts them in the database
    /// in one commit, after which the journal file that held them is
    /// emptied and the next step's record goes to the other file.
    @Test func smallStepsAreJournaledOnTheLoopAndReachTheDatabaseInGroups() async throws {
        let directory = Self.directory("journal")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, persistence) = try Self.persistence(in: directory, on: loop)
        struct Prepared: Sendable {
            var rows: Int
            var journaled: UInt64
        }
        let delivered = Mutex<[Prepared]>([])
        let service = Mutex(ToastService(instance: "i"))
        @Sendable func step(_ index: Int) {
            service.withLock { service in
                Self.add("j\(index)", &service, persistence)
                persistence.endStep(service.scheduler, prepare: {
                    Prepared(rows: (try? store.storedRows().count) ?? -1, journaled: store.journal.lastNumber)
                }) { prepared in delivered.withLock { $0.append(prepared) } }
            }
        }
        try await loop.submit { for index in 0..<(StatePersistence.applyEvery - 1) { step(index) } }.get()
        let early = delivered.withLock { $0 }
        #expect(early.count == StatePersistence.applyEvery - 1, "each small step's writes went out in its own turn")
        #expect(early.map(\.rows) == Array(repeating: 0, count: early.count), "before the database had any of them")
        #expect(early.map(\.journaled) == (1...UInt64(early.count)).map { $0 }, "each after its record")
        #expect(store.journal.sizes[0] > 0 && store.journal.sizes[1] == 0)

        try await loop.submit { step(StatePersistence.applyEvery - 1) }.get()
        // The commit thread applies the 64; its completion, on the loop, empties their file.
        let sizes = try await Self.eventually({ try await loop.submit { store.journal.sizes }.get() }) { $0[0] == 0 }
        #expect(try store.storedRows().count == StatePersistence.applyEvery)
        #expect(sizes == [0, 0])
        try await loop.submit { step(StatePersistence.applyEvery) }.get()
        #expect(store.journal.sizes[0] == 0 && store.journal.sizes[1] > 0, "the next record went to the other file")
        try await loop.flatSubmit { persistence.shutdown() }.get()
        await loop.shutdownGracefully()
    }

    /// Fewer steps than a group reach the database `applyAfter` after the
    /// first of them, on a clock that moves only when the test moves it.
    @Test func aFewJournaledStepsReachTheDatabaseAfterAWhile() async throws {
        let directory = Self.directory("journal")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, persistence) = try Self.persistence(in: directory, on: loop)
        try await Self.addSteps("few", count: 3, persistence, on: loop)
        await loop.advanceTime(by: StatePersistence.applyAfter - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(try store.storedRows().isEmpty, "not yet handed to the commit thread")
        await loop.advanceTime(by: .milliseconds(1))
        #expect(try await Self.eventually({ try store.storedRows().count }, { $0 == 3 }) == 3)
        try await loop.flatSubmit { persistence.shutdown() }.get()
        await loop.shutdownGracefully()
    }

    /// A stop waits for the journaled steps: once `shutdown`'s future has
    /// completed, the database holds them and the journal is empty. (It
    /// returned before the commit, and toastd left with the commit still
    /// running: an error from swift-nio on every stop, and the journal to
    /// apply again at the next start.)
    @Test func shutdownCompletesOnceTheJournaledStepsAreInTheDatabase() async throws {
        let directory = Self.directory("stop")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, persistence) = try Self.persistence(in: directory, on: loop)
        try await Self.addSteps("stop", count: 5, persistence, on: loop)
        #expect(try store.storedRows().isEmpty, "journaled on the loop, not yet in the database")
        try await loop.flatSubmit { persistence.shutdown() }.get()
        #expect(try store.storedRows().count == 5)
        #expect(try await loop.submit { store.journal.sizes }.get() == [0, 0])
        await loop.shutdownGracefully()
    }

    /// The quiet checkpoint, wired: on a loop whose clock moves only when
    /// the test moves it, 64 small steps (journaled on the loop, then
    /// applied as one group) arm the quiet timer; 249 ms later nothing has
    /// happened, and at 250 ms without a commit the checkpoint runs on the
    /// commit thread, which starts the WAL over (the header's restart
    /// count, bytes 12...15).
    @Test func aQuietMomentAfterEnoughCommitsCheckpointsTheWAL() async throws {
        let directory = Self.directory("quiet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, persistence) = try Self.persistence(in: directory, on: loop)
        @Sendable func restarts() throws -> UInt32 { try store.walRestartCount() }
        try await Self.addSteps("q", count: 64, persistence, on: loop)
        let before = try restarts()
        await loop.advanceTime(by: .milliseconds(249))
        #expect(try restarts() == before, "not quiet long enough: no checkpoint was started")
        await loop.advanceTime(by: .milliseconds(1))
        // The checkpoint runs on the commit thread: wait for its restart.
        let after = try await Self.eventually(restarts) { $0 != before }
        #expect(after == before + 1, "the quiet checkpoint started the WAL over")
        try await loop.flatSubmit { persistence.shutdown() }.get()
        await loop.shutdownGracefully()
    }
}
