// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// Reloads of the configuration, coalesced: at most one reading of the
/// file runs, and the requests that arrive meanwhile share one more
/// reading after it (each of them may follow an edit the running one
/// missed). Thirty pipelined `reload`s are two readings, not thirty.
struct ReloadQueue {
    /// Who asked: a connection to answer (nil for SIGHUP) and its `ref`.
    struct Requester {
        var connection: Int?
        var ref: JSONValue?
    }

    /// Those the running reading answers; nil when none runs.
    private var running: [Requester]?
    /// Those the next reading answers.
    private var next: [Requester] = []

    /// Notes a request; true when a reading should start now.
    mutating func request(_ requester: Requester) -> Bool {
        guard running == nil else {
            next.append(requester)
            return false
        }
        running = [requester]
        return true
    }

    /// The running reading ended: whom it answers, and whether another
    /// starts now (for those who asked meanwhile).
    mutating func finished() -> (answer: [Requester], startAgain: Bool) {
        let answered = running ?? []
        if next.isEmpty {
            running = nil
            return (answered, false)
        }
        running = next
        next = []
        return (answered, true)
    }
}
