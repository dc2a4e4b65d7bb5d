// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// The scheduler's live toasts, found by id: shown records lie densely in
/// one array, queued ones packed (`PackedRecord`) in another, and an
/// `IDTable` maps each id to its slot.
///
/// A `[ToastID: ToastRecord]` kept each 232-byte record in a hash table
/// whose slots are at most three-quarters full and grow by doubling: with
/// 100,000 toasts it had 262,144 slots of 240 bytes, 63 MB, most of them
/// empty (docs/BENCHMARKS.md, "Memory"). Here the empty slots of the
/// index cost 16 bytes each, the arrays only their growth margin, and
/// a waiting toast about its text's size. Removing swaps the last record
/// of its array into the freed slot.
struct RecordTable: Sendable {
    private var shown: [ToastRecord] = []
    private var queued: [PackedRecord] = []
    /// A slot in `shown`, or `~slot` (negative) in `queued`.
    private var index = IDTable<Int32>(filler: 0)

    var count: Int { shown.count + queued.count }

    /// The records the arrays have room for (tests).
    var capacity: Int { shown.capacity + queued.capacity }

    /// Every record, in no particular order.
    var values: [ToastRecord] { shown + queued.map(\.unpacked) }

    subscript(id: ToastID) -> ToastRecord? {
        get {
            guard let slot = index[id] else { return nil }
            return slot >= 0 ? shown[Int(slot)] : queued[Int(~slot)].unpacked
        }
        set {
            guard let newValue else {
                remove(id)
                return
            }
            precondition(newValue.id == id, "a record is stored under its own id")
            let packs = newValue.state == .queued
            if let slot = index[id] {
                if (slot < 0) == packs {
                    if packs { queued[Int(~slot)] = PackedRecord(newValue) } else { shown[Int(slot)] = newValue }
                    return
                }
                remove(id)
            }
            if packs {
                index[id] = ~Int32(queued.count)
                queued.append(PackedRecord(newValue))
            } else {
                index[id] = Int32(shown.count)
                shown.append(newValue)
            }
        }
    }

    /// Room for `count` more records, of which `queued` wait.
    mutating func reserveCapacity(_ count: Int, queued waiting: Int) {
        index.reserveCapacity(index.count + count)
        queued.reserveCapacity(queued.count + waiting)
        shown.reserveCapacity(shown.count + count - waiting)
    }

    /// Adds a record that is not here yet, `packed` being its packed form
    /// (a queued one keeps those bytes rather than packing itself again).
    mutating func insert(_ record: ToastRecord, packed: PackedRecord) {
        precondition(packed.id == record.id, "a new record is stored under its own id")
        if record.state == .queued {
            insert(queued: packed)
        } else {
            precondition(index[record.id] == nil, "a new record is stored under its own id")
            index[record.id] = Int32(shown.count)
            shown.append(record)
        }
    }

    /// Adds a waiting record that is not here yet, as its packed bytes.
    mutating func insert(queued packed: PackedRecord) {
        precondition(index[packed.id] == nil, "a new record is stored under its own id")
        index[packed.id] = ~Int32(queued.count)
        queued.append(packed)
    }

    /// Its state, read without unpacking a queued record.
    func state(of id: ToastID) -> ToastRecord.State? {
        guard let slot = index[id] else { return nil }
        return slot >= 0 ? shown[Int(slot)].state : .queued
    }

    /// A waiting record's packed bytes as held (nil if it is shown, or not
    /// here).
    func packed(_ id: ToastID) -> PackedRecord? {
        guard let slot = index[id], slot < 0 else { return nil }
        return queued[Int(~slot)]
    }

    /// When it expires (nil if it does not, or is not here), read without
    /// unpacking a queued record.
    func expiresAt(of id: ToastID) -> ToastInstant? {
        guard let slot = index[id] else { return nil }
        return slot >= 0 ? shown[Int(slot)].expiresAt : queued[Int(~slot)].expiresAt
    }

    private mutating func remove(_ id: ToastID) {
        guard let slot = index.removeValue(forKey: id) else { return }
        if slot >= 0 {
            Self.swapRemove(&shown, at: Int(slot)) { index[$0.id] = slot }
        } else {
            Self.swapRemove(&queued, at: Int(~slot)) { index[$0.id] = slot }
        }
        // Give back what arrays that held many more no longer need (the
        // index shrinks itself).
        Self.shrink(&shown)
        Self.shrink(&queued)
    }

    /// Removes the element at `slot` by moving the last one into it, and
    /// tells `moved` of the one that moved.
    private static func swapRemove<Element>(_ array: inout [Element], at slot: Int, moved: (Element) -> Void) {
        let last = array.removeLast()
        if slot < array.count {
            array[slot] = last
            moved(last)
        }
    }

    /// Halves what an array that held many more no longer needs.
    private static func shrink<Element>(_ array: inout [Element]) {
        guard array.capacity > 1_024 && array.count < array.capacity / 4 else { return }
        var compact: [Element] = []
        compact.reserveCapacity(array.count * 2)
        compact.append(contentsOf: array)
        array = compact
    }
}
