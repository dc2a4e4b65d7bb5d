// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization
import ToastCore
import ToastSystem

/// A restart's scheduler, built on a thread of its own while the store
/// reads the rows that fill it: the rows go over in chunks, and reading the
/// file (SQLite) and building the tables (`SchedulerStateMachine.Restoration`)
/// run side by side on two cores (docs/BENCHMARKS.md, "A restart on two
/// cores").
///
/// Each row's skim (`PackedRecord.skim`, the check of a waiting toast) may
/// run on either thread. Reading a row costs less than indexing it, so the
/// reader skims the rows of a chunk whenever the worker is behind, with a
/// chunk still waiting for it; else the worker skims them. The two threads
/// so balance themselves on any machine.
///
/// A state smaller than one chunk is restored on the reading thread, with
/// no thread started; so is every state when the system refuses a thread.
/// One owner: `append` each row in id order, then `finish` once.
final class RestoreHandOff {
    /// Rows handed over at a time: a wakeup of the worker per 2,048 rows.
    static let chunkRows = 2_048

    private var pending: [SchedulerStateMachine.Restoration.Row] = []
    /// The rows restored on this thread, when no worker runs.
    private var here: Progress?
    private var worker: Worker?
    private var finished = false
    /// Whether this chunk's rows are skimmed here.
    private var skimsHere = false

    init() {
        pending.reserveCapacity(Self.chunkRows)
    }

    /// Whether the rows go to a thread of their own (tests).
    var handsOver: Bool { worker != nil }

    /// A reader that gave up (SQLite failed) lets the worker end.
    deinit {
        if !finished { worker?.end() }
    }

    /// The next row, in ascending id order.
    func append(_ row: PackedRecord) {
        pending.append(SchedulerStateMachine.Restoration.Row(row, skims: skimsHere))
        guard pending.count == Self.chunkRows else { return }
        let chunk = pending
        pending = []
        pending.reserveCapacity(Self.chunkRows)
        if worker == nil, here == nil {
            worker = Worker.start()
            if worker == nil { here = Progress() }
        }
        if let worker {
            worker.send(chunk)
            skimsHere = worker.isBehind
        } else {
            here!.take(chunk)
        }
    }

    /// Every row restored; the first damaged one throws, naming the damage.
    func finish() throws(StoredToast.Damage) -> SchedulerStateMachine.Restoration {
        precondition(!finished, "a hand-off is finished once")
        finished = true
        if let worker {
            worker.send(pending)
            return try worker.finish()
        }
        var progress = here ?? Progress()
        here = nil
        progress.take(pending)
        return try progress.result()
    }

    /// A restoration and the first damage it met, on whichever thread
    /// restores: the chunks after a damaged row are not restored (the file
    /// is corrupt, and the store starts a fresh one).
    private struct Progress: Sendable {
        private var restoration = SchedulerStateMachine.Restoration(checks: true)
        private var damage: StoredToast.Damage?

        mutating func take(_ chunk: [SchedulerStateMachine.Restoration.Row]) {
            guard damage == nil else { return }
            do { try restoration.take(chunk) } catch { damage = error }
        }

        consuming func result() throws(StoredToast.Damage) -> SchedulerStateMachine.Restoration {
            if let damage { throw damage }
            return restoration
        }
    }

    /// The thread that restores the chunks, in the order they came.
    private final class Worker: Sendable {
        private let inbox = Mutex<[[SchedulerStateMachine.Restoration.Row]]>([])
        /// One signal per chunk, and one more for the end.
        private let work = DispatchSemaphore(value: 0)
        private let outcome = Mutex<Progress?>(nil)
        private let done = DispatchSemaphore(value: 0)

        /// A worker on a new thread, or nil if the system refused one.
        static func start() -> Worker? {
            let worker = Worker()
            return DetachedThread.start { worker.run() } ? worker : nil
        }

        func send(_ chunk: [SchedulerStateMachine.Restoration.Row]) {
            inbox.withLock { $0.append(chunk) }
            work.signal()
        }

        /// Whether a chunk waits for the worker besides the one it restores.
        var isBehind: Bool { inbox.withLock { $0.count > 1 } }

        /// No more chunks: the worker ends once it has restored those sent.
        func end() {
            work.signal()
        }

        func finish() throws(StoredToast.Damage) -> SchedulerStateMachine.Restoration {
            end()
            done.wait()
            return try outcome.withLock { $0.take()! }.result()
        }

        private func run() {
            var progress = Progress()
            while true {
                work.wait()
                // Each chunk came with a signal of its own: a signal that
                // finds none is the end.
                guard let chunk = inbox.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { break }
                progress.take(chunk)
            }
            outcome.withLock { $0 = progress }
            done.signal()
        }
    }
}
