// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// A hash table keyed by toast id, for the scheduler's indexes of live
/// toasts (`RecordTable`, a source's toasts, the router's adders), and by
/// the seeded identity hashes of `IdentityIndex`.
///
/// Swift's `Dictionary` hashes every key with seeded SipHash, which is what
/// a table of keys chosen by strangers needs. Toast ids are chosen by the
/// scheduler: consecutive integers from 1. Multiplied by 2⁶⁴/φ (Fibonacci
/// hashing), they land in distinct, evenly spread slots, so a lookup is a
/// multiply, a shift and usually one comparison. In the ingest profile the
/// `Dictionary`s and `Set`s of ids hashed 32 times an add, 5% of the event
/// loop's instructions (docs/BENCHMARKS.md, "Ids hashed by multiplication").
///
/// What is spread is runs of eight ids (`home(_:)`): the ids of a run sit
/// side by side, in two cache lines. Toasts added together are mostly
/// read together, so a million-toast table takes one cache miss for eight
/// new ids where it took one for each: the scheduler's add at 1,000,000
/// toasts went from 1.56× its cost at 1,000 to 1.22× (docs/BENCHMARKS.md,
/// section 5, "Ids in runs of eight"). Keys that all sit at the same place
/// in their runs (multiples of eight, or random ones) still spread over
/// the runs, and `meanProbeLength` stays small for them (tested).
///
/// Open addressing with linear probing; a removal shifts the entries that
/// follow back into place (no tombstones). The table doubles at three
/// quarters full and halves below one eighth, so 100,000 toasts then a
/// `clear` give the memory back. Key 0 marks an empty slot, so it is kept
/// beside the table: the scheduler never gives a toast id 0, but a
/// hand-edited state file may hold one, and toastd must not trap on it.
/// (Keys of random
/// bits spread as well as consecutive ones; keys from a stranger would
/// need a seeded hash, and do not belong here.)
struct IDTable<Value>: Sendable where Value: Sendable {
    private struct Slot: Sendable {
        /// 0 when empty.
        var key: ToastID
        var value: Value
    }

    private var slots: ContiguousArray<Slot> = []
    /// 64 minus log2 of the slot count: a key's home slot is the top bits of its product.
    private var shift: UInt64 = 64
    /// What an empty slot holds (never read as a value).
    private let filler: Value
    /// The value of key 0, which cannot live in a slot.
    private var zero: Value?
    private(set) var count = 0

    /// The smallest table allocated, in slots.
    private static var minimumSlots: Int { 8 }

    init(filler: Value) {
        self.filler = filler
    }

    var isEmpty: Bool { count == 0 }

    /// Slots allocated (tests: the table grows and shrinks).
    var slotCount: Int { slots.count }

    subscript(key: ToastID) -> Value? {
        get {
            if key == 0 { return zero }
            guard let slot = find(key).found else { return nil }
            return slots[slot].value
        }
        set {
            if let newValue { insert(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// The value for `key`, created from `default` if absent, changed in place.
    subscript(key: ToastID, default value: @autoclosure () -> Value) -> Value {
        get { self[key] ?? value() }
        _modify {
            if key == 0 {
                if zero == nil { insert(value(), forKey: 0) }
                yield &zero!
                return
            }
            let slot = find(key).found ?? insertNew(value(), forKey: key)
            yield &slots[slot].value
        }
    }

    /// The mean number of slots a lookup of a present key reads, its own
    /// included (tests: how evenly keys spread).
    var meanProbeLength: Double {
        let mask = slots.count - 1
        var total = 0
        var stored = 0
        for (slot, entry) in slots.enumerated() where entry.key != 0 {
            total += ((slot - home(entry.key)) & mask) + 1
            stored += 1
        }
        return stored == 0 ? 0 : Double(total) / Double(stored)
    }

    func contains(_ key: ToastID) -> Bool { key == 0 ? zero != nil : find(key).found != nil }

    /// Every key, in no particular order.
    var keys: [ToastID] {
        var keys: [ToastID] = []
        keys.reserveCapacity(count)
        if zero != nil { keys.append(0) }
        for slot in slots where slot.key != 0 { keys.append(slot.key) }
        return keys
    }

    /// Sets the value for `key`; returns the value it replaced.
    @discardableResult
    mutating func insert(_ value: Value, forKey key: ToastID) -> Value? {
        if key == 0 {
            let old = zero
            zero = value
            if old == nil { count += 1 }
            return old
        }
        if let found = find(key).found {
            let old = slots[found].value
            slots[found].value = value
            return old
        }
        insertNew(value, forKey: key)
        return nil
    }

    @discardableResult
    mutating func removeValue(forKey key: ToastID) -> Value? {
        if key == 0 {
            let old = zero
            zero = nil
            if old != nil { count -= 1 }
            return old
        }
        guard let found = find(key).found else { return nil }
        let old = slots[found].value
        removeSlot(found)
        if slots.count > Self.minimumSlots && count < slots.count / 8 { resize(to: slots.count / 2) }
        return old
    }

    /// Changes every value in place and keeps those `update` returns true
    /// for, in one pass that builds the table anew. Taking most of a table
    /// out key by key costs far more: each removal shifts the entries after
    /// its hole, and the table halves again and again (a client that
    /// queued 20,000 toasts and closed took 76 million instructions).
    mutating func update(keepingWhere update: (inout Value) -> Bool) {
        var kept = IDTable(filler: filler)
        if var value = zero, update(&value) { kept.insert(value, forKey: 0) }
        for slot in slots where slot.key != 0 {
            var value = slot.value
            if update(&value) { kept.insertNew(value, forKey: slot.key) }
        }
        self = kept
    }

    /// Room for `count` keys without growing (a restart knows how many
    /// it will insert; growing by doubling moved every key each time).
    mutating func reserveCapacity(_ count: Int) {
        var wanted = max(Self.minimumSlots, slots.count)
        while count * 4 > wanted * 3 { wanted *= 2 }
        if wanted > slots.count { resize(to: wanted) }
    }

    // MARK: - Probing

    /// Eight consecutive ids (a run: `key >> 3`) have eight consecutive
    /// slots, and the runs are spread by Fibonacci hashing: the top bits of
    /// the run's product pick its first slot, with the low three cleared
    /// (the table has at least eight slots), and the key's low three bits
    /// pick its place in the run.
    @inline(__always)
    private func home(_ key: ToastID) -> Int {
        let run = ((key &>> 3) &* 0x9E37_79B9_7F4A_7C15) &>> shift
        return Int(truncatingIfNeeded: (run & ~7) | (key & 7))
    }

    /// Where `key` (not 0) is (`found`), or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: ToastID) -> (found: Int?, empty: Int) {
        guard key != 0, !slots.isEmpty else { return (nil, -1) }
        let mask = slots.count - 1
        var slot = home(key)
        while true {
            let here = slots[slot].key
            if here == key { return (slot, -1) }
            if here == 0 { return (nil, slot) }
            slot = (slot + 1) & mask
        }
    }

    /// Stores a key (not 0) known to be absent; returns its slot.
    @discardableResult
    private mutating func insertNew(_ value: Value, forKey key: ToastID) -> Int {
        if (count + 1) * 4 > slots.count * 3 { resize(to: max(Self.minimumSlots, slots.count * 2)) }
        let slot = find(key).empty
        slots[slot] = Slot(key: key, value: value)
        count += 1
        return slot
    }

    /// Empties `slot`, then moves back each entry after it that probing
    /// would no longer reach past the hole.
    private mutating func removeSlot(_ slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = (slot + 1) & mask
        while slots[next].key != 0 {
            let wanted = home(slots[next].key)
            // Whether `wanted` lies cyclically in (hole, next]: if not, the
            // entry at `next` may move into the hole.
            let stays = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next)
            if !stays {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(key: 0, value: filler)
        count -= 1
    }

    private mutating func resize(to slotCount: Int) {
        let old = slots
        slots = ContiguousArray(repeating: Slot(key: 0, value: filler), count: slotCount)
        shift = UInt64(64 - slotCount.trailingZeroBitCount)
        for slot in old where slot.key != 0 {
            slots[find(slot.key).empty] = slot
        }
    }
}

/// A set of toast ids, on the same table.
struct IDSet: Sendable {
    private var table = IDTable<Void>(filler: ())

    init() {}

    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }
    func contains(_ id: ToastID) -> Bool { table.contains(id) }

    mutating func insert(_ id: ToastID) { table.insert((), forKey: id) }

    mutating func remove(_ id: ToastID) {
        // An empty set is the common case for a source's subsets.
        if !table.isEmpty { table.removeValue(forKey: id) }
    }

    /// The ids, smallest first.
    func sorted() -> [ToastID] { table.keys.sorted() }

    /// The ids, in no particular order.
    var members: [ToastID] { table.keys }
}
