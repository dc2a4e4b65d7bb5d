// SPDX-License-Identifier: Apache-2.0
import HeapModule
import ToastProtocol

/// A min-heap of expiry deadlines, on swift-collections' `Heap` (a min-max
/// heap; measured against the binary heap it replaced in
/// docs/BENCHMARKS.md). Entries are invalidated lazily: an entry is stale
/// when its toast no longer expires at that instant, and stale entries are
/// dropped when they surface or when they outnumber the live ones.
package struct DeadlineHeap: Sendable {
    package struct Entry: Sendable, Comparable {
        package var deadline: ToastInstant
        package var id: ToastID

        package init(deadline: ToastInstant, id: ToastID) {
            self.deadline = deadline
            self.id = id
        }

        package static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    private var heap = Heap<Entry>()

    package init() {}

    package var count: Int { heap.count }

    package mutating func push(_ entry: Entry) {
        heap.insert(entry)
    }

    /// The earliest entry that is still valid, after dropping stale ones.
    package mutating func peek(isValid: (Entry) -> Bool) -> Entry? {
        while let first = heap.min {
            if isValid(first) { return first }
            heap.removeMin()
        }
        return nil
    }

    package mutating func popMin() -> Entry? {
        heap.popMin()
    }

    /// Rebuilds the heap from the valid entries only.
    package mutating func rebuild(keeping isValid: (Entry) -> Bool) {
        heap = Heap(heap.unordered.filter(isValid))
    }
}
