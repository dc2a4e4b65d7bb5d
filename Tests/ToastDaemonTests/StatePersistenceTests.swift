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
