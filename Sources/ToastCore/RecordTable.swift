/// The scheduler's live toasts, found by id: the records lie densely in an
/// array, and a dictionary maps each id to its slot.
///
/// A `[ToastID: ToastRecord]` kept each 232-byte record in a hash table
/// whose slots are at most three-quarters full and grow by doubling: with
/// 100,000 toasts it had 262,144 slots of 240 bytes, 63 MB, most of them
/// empty (docs/BENCHMARKS.md, "Memory"). Here the empty slots of the
/// dictionary cost 12 bytes each, and the array only its growth margin.
/// Removing swaps the last record into the freed slot.
struct RecordTable: Sendable {
    private var slots: [ToastRecord] = []
    private var index: [ToastID: Int32] = [:]

    var count: Int { slots.count }

    /// Every record, in no particular order.
    var values: [ToastRecord] { slots }

    subscript(id: ToastID) -> ToastRecord? {
        get { index[id].map { slots[Int($0)] } }
        set {
            guard let newValue else {
                remove(id)
                return
            }
            precondition(newValue.id == id, "a record is stored under its own id")
            if let slot = index[id] {
                slots[Int(slot)] = newValue
            } else {
                index[id] = Int32(slots.count)
                slots.append(newValue)
            }
        }
    }

    private mutating func remove(_ id: ToastID) {
        guard let slot = index.removeValue(forKey: id).map(Int.init) else { return }
        let last = slots.removeLast()
        if slot < slots.count {
            slots[slot] = last
            index[last.id] = Int32(slot)
        }
        // Give back what a table that held many more no longer needs.
        if slots.capacity > 1_024 && slots.count < slots.capacity / 4 {
            var compact: [ToastRecord] = []
            compact.reserveCapacity(slots.count * 2)
            compact.append(contentsOf: slots)
            slots = compact
            index = index.reduce(into: [ToastID: Int32](minimumCapacity: slots.count)) { $0[$1.key] = $1.value }
        }
    }
}
