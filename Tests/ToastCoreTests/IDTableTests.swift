// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("The id table")
struct IDTableTests {
    /// SplitMix64, so that a failing sequence can be replayed from its seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random inserts, replacements and removals against a `Dictionary`:
    /// dense consecutive ids (the scheduler's), which fill runs of slots and
    /// wrap around the table's end, and sparse ones over all 64 bits, whose
    /// home slots collide.
    @Test(arguments: [UInt64(300), 5_000, .max])
    func behavesLikeADictionary(largestID: UInt64) {
        var generator = Generator(state: largestID)
        var table = IDTable<Int>(filler: -1)
        var model: [ToastID: Int] = [:]
        // A small pool of the sparse keys, so that they are met again.
        let pool = (0..<400).map { _ in ToastID.random(in: 1...largestID, using: &generator) }
        for step in 0..<40_000 {
            let id = pool[Int.random(in: 0..<pool.count, using: &generator)]
            switch Int.random(in: 0..<5, using: &generator) {
            case 0, 1:
                #expect(table.insert(step, forKey: id) == model.updateValue(step, forKey: id))
            case 2:
                table[id, default: 0] += 1
                model[id, default: 0] += 1
            case 3:
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
            default:
                table[id] = nil
                model[id] = nil
            }
            #expect(table[id] == model[id])
            #expect(table.contains(id) == (model[id] != nil))
            if step % 1_000 == 0 {
                #expect(table.count == model.count)
                #expect(table.keys.sorted() == model.keys.sorted())
                for (key, value) in model { #expect(table[key] == value) }
            }
        }
        for (key, value) in model { #expect(table[key] == value) }
    }

    /// Removing from the middle of a run of collided keys must keep every
    /// key after the hole reachable, including runs that wrap past the end.
    /// Keys of one place in their runs of eight (8k, or 8k + 7, whose home
    /// is a group's last slot) collide; consecutive ones fill their runs.
    @Test(arguments: [(8, 0), (8, 7), (1, 1)])
    func removalsKeepTheRestOfARunReachable(stride: Int, offset: Int) {
        for size in [8, 16, 64] {
            var table = IDTable<ToastID>(filler: 0)
            let ids = (1...ToastID(size * 3 / 4 - 1)).map { $0 * ToastID(stride) + ToastID(offset) }
            for id in ids { table[id] = id }
            #expect(table.slotCount == size)
            for removed in ids {
                var copy = table
                copy[removed] = nil
                for id in ids { #expect(copy[id] == (id == removed ? nil : id), "slots \(size), removed \(removed), looked up \(id)") }
            }
        }
    }

    /// Runs of eight consecutive ids sit side by side, yet the keys the
    /// scheduler never makes on purpose spread as well: the mean probe,
    /// at the fullest the table gets (98,304 keys in 131,072 slots).
    @Test(arguments: ["consecutive", "every eighth", "every 4,096th", "random"])
    func keysSpreadOverTheSlots(pattern: String) {
        var generator = Generator(state: 42)
        var table = IDTable<Int32>(filler: 0)
        for index in 1...98_304 {
            let id: ToastID =
                switch pattern {
                case "consecutive": ToastID(index)
                case "every eighth": ToastID(index) * 8
                case "every 4,096th": ToastID(index) * 4_096
                default: ToastID.random(in: 1 ... .max, using: &generator)
                }
            table[id] = 1
        }
        #expect(table.slotCount == 131_072)
        let probe = table.meanProbeLength
        // Linear probing over evenly spread keys reads (1 + 1 / (1 - ¾)) / 2
        // = 2.5 slots at this load (random keys: 2.49). Consecutive ids
        // read 1.5: a run whose group is taken moves on whole. Keys of one
        // place in their runs queue up within their group (3.5 for both
        // strides), two cache lines. A hash that let the strided keys pile
        // up would read thousands.
        #expect(probe >= 1 && probe <= (pattern == "consecutive" ? 2 : 4), "\(pattern): \(probe)")
    }

    /// Key 0 marks an empty slot, so it lives beside the table: no toast
    /// has id 0, but a hand-edited state file may, and it must not trap.
    @Test func zeroIsKeptBesideTheTable() {
        var table = IDTable<Int>(filler: 7)
        #expect(table[0] == nil)
        table[1] = 1
        #expect(table[0] == nil && !table.contains(0))
        #expect(table.insert(10, forKey: 0) == nil)
        #expect(table[0] == 10 && table.contains(0))
        table[0, default: 0] += 5
        #expect(table[0] == 15)
        #expect(table.count == 2)
        #expect(table.keys.sorted() == [0, 1])
        #expect(table.removeValue(forKey: 0) == 15)
        #expect(table[0] == nil && table.count == 1)
        table[0, default: 3] += 1
        #expect(table[0] == 4 && table.count == 2)
        table[0] = nil
        #expect(table.count == 1 && table[1] == 1)
    }

    /// It doubles at three quarters full and halves below an eighth, so a
    /// drained table gives its memory back.
    @Test func growsAndShrinks() {
        var table = IDTable<Int32>(filler: 0)
        #expect(table.slotCount == 0)
        for id in 1...100_000 { table[ToastID(id)] = Int32(id) }
        #expect(table.slotCount == 262_144)
        for id in 1...99_990 { table[ToastID(id)] = nil }
        #expect(table.count == 10)
        #expect(table.slotCount <= 128)
        for id in 99_991...100_000 { #expect(table[ToastID(id)] == Int32(id)) }
    }

    /// `update(keepingWhere:)` against a `Dictionary`: values changed in
    /// place, some dropped, key 0 among them, over consecutive and random
    /// keys; the table then goes on like any other.
    @Test func updatingEveryValueKeepsWhatItSaysAndChangesTheRest() {
        var generator = Generator(state: 7)
        var table = IDTable<Int>(filler: -1)
        var model: [ToastID: Int] = [:]
        let keys = (0...3_000).map { ToastID($0) } + (0..<3_000).map { _ in ToastID.random(in: 1 ... .max, using: &generator) }
        for (index, key) in keys.enumerated() {
            table[key] = index
            model[key] = index
        }
        table.update { value in
            value += 1
            return value % 3 != 0
        }
        model = model.compactMapValues { $0 + 1 }.filter { $0.value % 3 != 0 }
        #expect(table.count == model.count)
        #expect(table.keys.sorted() == model.keys.sorted())
        for (key, value) in model { #expect(table[key] == value) }
        #expect(table[0] == model[0])
        for key in keys.prefix(500) {
            table[key] = nil
            model[key] = nil
        }
        #expect(table.count == model.count)
        for (key, value) in model { #expect(table[key] == value) }
        table.update { _ in false }
        #expect(table.isEmpty && table[0] == nil && table.slotCount == 0)
    }

    @Test func setsOfIDs() {
        var set = IDSet()
        set.remove(4)
        #expect(set.isEmpty)
        for id: ToastID in [9, 3, 27, 3] { set.insert(id) }
        #expect(set.count == 3)
        #expect(set.contains(27) && !set.contains(4))
        set.remove(9)
        #expect(set.sorted() == [3, 27])
    }
}
