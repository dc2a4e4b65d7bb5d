// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// A FIFO of toast ids that supports removal from anywhere in O(1): an
/// array with a head index. swift-collections' `Deque` was measured in its
/// place and took 1.5× the time per id (toast-bench's libraries scenario,
/// docs/BENCHMARKS.md), so this stays.
///
/// Removal is lazy: the caller forgets the id elsewhere (its record is no
/// longer `queued`) and tells the queue its live count dropped; the stale
/// entry is skipped when it reaches the head. Entries are compacted once the
/// stale ones outnumber the live ones, so memory stays proportional to the
/// number of toasts that really wait, whatever the add/remove pattern.
package struct WaitQueue: Sendable {
    private var entries: [ToastID] = []
    private var head = 0
    /// How many entries are still waiting.
    package private(set) var count = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    package mutating func append(_ id: ToastID) {
        entries.append(id)
        count += 1
    }

    /// Records that one waiting entry was removed elsewhere.
    package mutating func noteRemoved(isLive: (ToastID) -> Bool) {
        count -= 1
        let stale = entries.count - head - count
        if stale > 64 && stale > count {
            compact(isLive: isLive)
        }
    }

    /// Takes the oldest live entry.
    package mutating func popFirst(isLive: (ToastID) -> Bool) -> ToastID? {
        while head < entries.count {
            let id = entries[head]
            head += 1
            if isLive(id) {
                count -= 1
                if head > 1024 && head * 2 > entries.count {
                    entries.removeFirst(head)
                    head = 0
                }
                return id
            }
        }
        return nil
    }

    /// The live entries, oldest first.
    package func live(isLive: (ToastID) -> Bool) -> [ToastID] {
        entries[head...].filter(isLive)
    }

    private mutating func compact(isLive: (ToastID) -> Bool) {
        entries = entries[head...].filter(isLive)
        head = 0
    }
}
