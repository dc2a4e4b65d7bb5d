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
    /// Steps too large to commit on the loop go to the commit thread one
    /// after another. Their writes go out in the order of the steps, each
    /// once its changes are in the file, and a step without changes waits
    /// for the steps before it.
    @Test func writesGoOutInStepOrderEachAfterItsCommit() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-steps-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        let persistence = StatePersistence(storage: .durable(store, loaded), loop: loop, logger: Logger(label: "test"))
        defer { persistence.shutdown() }
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
                for index in 0..<rowsPerStep {
                    let line = Array(#"{"op":"add","toast":{"message":"s\#(step)-\#(index)"}}"#.utf8)
                    let response = service.respond(toLine: line, defaultSource: nil, now: 0)
                    for publication in service.publish(response.effects) { persistence.note(publication.event) }
                }
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

    /// Small steps are made durable on the loop, in the journal, and their
    /// writes go out at once, before the database has them; the 64th step
    /// hands all 64 to the commit thread, which puts them in the database
    /// in one commit, after which the journal file that held them is
    /// emptied and the next step's record goes to the other file.
    @Test func smallStepsAreJournaledOnTheLoopAndReachTheDatabaseInGroups() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-journal-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        let persistence = StatePersistence(storage: .durable(store, loaded), loop: loop, logger: Logger(label: "test"))
        struct Prepared: Sendable {
            var rows: Int
            var journaled: UInt64
        }
        let delivered = Mutex<[Prepared]>([])
        let service = Mutex(ToastService(instance: "i"))
        @Sendable func step(_ index: Int) {
            service.withLock { service in
                let line = Array(#"{"op":"add","toast":{"message":"j\#(index)"}}"#.utf8)
                let response = service.respond(toLine: line, defaultSource: nil, now: 0)
                for publication in service.publish(response.effects) { persistence.note(publication.event) }
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
        var sizes = store.journal.sizes
        for _ in 0..<500 where sizes[0] > 0 {
            try await Task.sleep(for: .milliseconds(10))
            await loop.run()
            sizes = try await loop.submit { store.journal.sizes }.get()
        }
        #expect(try store.storedRows().count == StatePersistence.applyEvery)
        #expect(sizes == [0, 0])
        try await loop.submit { step(StatePersistence.applyEvery) }.get()
        #expect(store.journal.sizes[0] == 0 && store.journal.sizes[1] > 0, "the next record went to the other file")
        try await loop.submit { persistence.shutdown() }.get()
        await loop.shutdownGracefully()
    }

    /// Fewer steps than a group reach the database `applyAfter` after the
    /// first of them, on a clock that moves only when the test moves it.
    @Test func aFewJournaledStepsReachTheDatabaseAfterAWhile() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-journal-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        let persistence = StatePersistence(storage: .durable(store, loaded), loop: loop, logger: Logger(label: "test"))
        try await loop.submit {
            var service = ToastService(instance: "i")
            for index in 0..<3 {
                let line = Array(#"{"op":"add","toast":{"message":"few\#(index)"}}"#.utf8)
                let response = service.respond(toLine: line, defaultSource: nil, now: 0)
                for publication in service.publish(response.effects) { persistence.note(publication.event) }
                persistence.endStep(service.scheduler, prepare: {}) {}
            }
        }.get()
        await loop.advanceTime(by: StatePersistence.applyAfter - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(try store.storedRows().isEmpty, "not yet handed to the commit thread")
        await loop.advanceTime(by: .milliseconds(1))
        var rows = try store.storedRows().count
        for _ in 0..<500 where rows < 3 {
            try await Task.sleep(for: .milliseconds(10))
            rows = try store.storedRows().count
        }
        #expect(rows == 3)
        try await loop.submit { persistence.shutdown() }.get()
        await loop.shutdownGracefully()
    }

    /// The quiet checkpoint, wired: on a loop whose clock moves only when
    /// the test moves it, 64 small steps (each committed on the loop) arm
    /// the quiet timer; 249 ms later nothing has happened, and at 250 ms
    /// without a commit the checkpoint runs on the commit thread, which
    /// starts the WAL over (the header's restart count, bytes 12...15).
    @Test func aQuietMomentAfterEnoughCommitsCheckpointsTheWAL() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastd-quiet-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = NIOAsyncTestingEventLoop()
        let (store, loaded) = try ToastStore.open(directory: directory, historySize: 10)
        let persistence = StatePersistence(storage: .durable(store, loaded), loop: loop, logger: Logger(label: "test"))
        @Sendable func restarts() throws -> UInt32 { try store.walRestartCount() }
        try await loop.submit {
            var service = ToastService(instance: "i")
            for index in 0..<64 {
                let line = Array(#"{"op":"add","toast":{"message":"q\#(index)"}}"#.utf8)
                let response = service.respond(toLine: line, defaultSource: nil, now: 0)
                for publication in service.publish(response.effects) { persistence.note(publication.event) }
                persistence.endStep(service.scheduler, prepare: {}) {}
            }
        }.get()
        let before = try restarts()
        await loop.advanceTime(by: .milliseconds(249))
        #expect(try restarts() == before, "not quiet long enough: no checkpoint was started")
        await loop.advanceTime(by: .milliseconds(1))
        // The checkpoint runs on the commit thread: wait for its restart.
        var after = try restarts()
        for _ in 0..<500 where after == before {
            try await Task.sleep(for: .milliseconds(10))
            after = try restarts()
        }
        #expect(after == before + 1, "the quiet checkpoint started the WAL over")
        try await loop.submit { persistence.shutdown() }.get()
        await loop.shutdownGracefully()
    }
}
