// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore
import ToastProtocol

@testable import ToastStore

/// A restart's restore, fed as the store reads its rows: in chunks, on a
/// thread of its own once there is more than one (`RestoreHandOff`).
@Suite("A restart's rows handed over in chunks")
struct RestoreHandOffTests {
    /// A scheduler holding about `count` live toasts: three shown in each
    /// of three scenes (the default configuration, which a store restores
    /// with), the rest waiting; seven sources, a reuse id on one in
    /// eleven (dedupes), and one in fifty with text beyond ASCII, which the
    /// restore's skim leaves to the full check.
    static func scheduler(adding count: Int) -> SchedulerStateMachine {
        var service = ToastService(configuration: SchedulerConfiguration(), instance: "i")
        for index in 0..<count {
            let message = index % 50 == 7 ? "café \(index)" : "toast \(index)"
            let reuse = index % 11 == 3 ? #","reuseId":"r\#(index % 13)""# : ""
            let line = #"{"op":"add","toast":{"message":"\#(message)","duration":"indefinite","source":"s\#(index % 7)","scene":"c\#(index % 3)"\#(reuse)}}"#
            let response = service.respond(toLine: Array(line.utf8), defaultSource: "t", now: Int64(index))
            _ = service.publish(response.effects)
        }
        return service.scheduler
    }

    /// Its live toasts as the store's rows, in id order, as the store reads them.
    static func rows(of machine: SchedulerStateMachine) -> [PackedRecord] {
        machine.state.packedRecords.sorted { $0.id < $1.id }.map { packed in
            StoredToast.withBytes(of: packed.unpacked) { bytes in try! StoredToast.row(id: packed.id, from: bytes) }
        }
    }

    static func restore(_ rows: [PackedRecord], like machine: SchedulerStateMachine) throws(StoredToast.Damage) -> (SchedulerStateMachine, Bool) {
        let handOff = RestoreHandOff()
        for row in rows { handOff.append(row) }
        let handsOver = handOff.handsOver
        let state = machine.state
        let restored = try handOff.finish().finish(
            pausedLevel: state.pausedLevel, modes: state.modes, nextID: state.nextID, lastSequence: state.lastSequence,
            newestBySource: state.newestBySource
        )
        return (restored, handsOver)
    }

    /// However many chunks the rows make, the restored scheduler is the
    /// one saved: the same stacks in the same order, the same counters,
    /// and the same answers to what comes next (a dedupe into a waiting
    /// toast, the shown ones removed and the next ones shown).
    @Test(arguments: [0, 40, RestoreHandOff.chunkRows + 40, 3 * RestoreHandOff.chunkRows + 9])
    func theRestoredSchedulerIsTheSavedOneHoweverManyChunks(adding count: Int) throws {
        var saved = Self.scheduler(adding: count)
        let rows = Self.rows(of: saved)
        var (restored, handsOver) = try Self.restore(rows, like: saved)
        #expect(handsOver == (rows.count >= RestoreHandOff.chunkRows))
        #expect(restored.snapshot() == saved.snapshot())
        #expect(restored.nextToastID == saved.nextToastID)
        #expect(restored.lastSequence == saved.lastSequence)

        let now = ToastInstant(count + 1)
        var commands: [SchedulerCommand] = [
            .tick, .add(Toast(message: "again", duration: .indefinite, scene: "c1", reuseID: "r3", source: "s3")),
        ]
        commands += saved.snapshot().toasts.filter { $0.state == .shown }.map { .remove(.id($0.id)) }
        for command in commands {
            #expect(restored.handle(command, now: now).events == saved.handle(command, now: now).events, "\(command)")
        }
        #expect(restored.snapshot() == saved.snapshot())
    }

    /// A damaged row in any chunk, on either thread, is found and named:
    /// the store then treats its file as corrupt.
    @Test(arguments: [40, 3 * RestoreHandOff.chunkRows + 9])
    func aDamagedRowInAnyChunkIsNamed(adding count: Int) throws {
        let saved = Self.scheduler(adding: count)
        var rows = Self.rows(of: saved)
        let victim = rows.count - 5
        let id = rows[victim].id
        // Cut short: the toast's last member is missing.
        let stored = StoredToast.withBytes(of: rows[victim].unpacked) { Array($0.dropLast()) }
        rows[victim] = try stored.withUnsafeBufferPointer { bytes in try StoredToast.row(id: id, from: bytes) }
        #expect {
            _ = try Self.restore(rows, like: saved)
        } throws: { error in
            "\(error)".contains("\(id)")
        }
    }
}
