import ToastProtocol
/// A binary min-heap of expiry deadlines. Entries are invalidated lazily:
/// an entry is stale when its toast no longer expires at that instant, and
/// stale entries are dropped when they surface or when they outnumber the
/// live ones.
struct DeadlineHeap: Sendable {
    struct Entry: Sendable, Comparable {
        var deadline: ToastInstant
        var id: ToastID

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        siftUp(entries.count - 1)
    }

    /// The earliest entry that is still valid, after dropping stale ones.
    mutating func peek(isValid: (Entry) -> Bool) -> Entry? {
        while let first = entries.first {
            if isValid(first) { return first }
            _ = popMin()
        }
        return nil
    }

    mutating func popMin() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let minimum = entries.removeLast()
        if !entries.isEmpty { siftDown(0) }
        return minimum
    }

    /// Rebuilds the heap from the valid entries only.
    mutating func rebuild(keeping isValid: (Entry) -> Bool) {
        entries = entries.filter(isValid)
        guard entries.count > 1 else { return }
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child] < entries[parent] else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            let right = left + 1
            if right < entries.count && entries[right] < entries[left] { smallest = right }
            guard entries[smallest] < entries[parent] else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
