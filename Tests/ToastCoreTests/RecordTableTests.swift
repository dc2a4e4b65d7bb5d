// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("The scheduler's record table")
struct RecordTableTests {
    static func record(_ id: ToastID) -> ToastRecord {
        ToastRecord(id: id, toast: Toast(message: "m\(id)"), state: .queued, repeatCount: 1, createdAt: 0)
    }

    /// Random stores, replacements and removals against a plain dictionary.
    @Test func behavesLikeADictionary() {
        var table = RecordTable()
        var model: [ToastID: ToastRecord] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let id = ToastID.random(in: 1...3_000, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0, 1:
                var record = Self.record(id)
                record.repeatCount = step
                table[id] = record
                model[id] = record
            default:
                table[id] = nil
                model[id] = nil
            }
            if step % 997 == 0 {
                #expect(table.count == model.count)
                #expect(Set(table.values.map(\.id)) == Set(model.keys))
            }
            #expect(table[id] == model[id])
        }
        for id in model.keys { #expect(table[id] == model[id]) }
    }

    /// No toast gets id 0, but a state file edited by hand may hold one.
    @Test func aRecordWithIDZeroIsStoredLikeAnyOther() {
        var table = RecordTable()
        table[0] = Self.record(0)
        table[1] = Self.record(1)
        #expect(table[0]?.toast.message == "m0")
        #expect(table.state(of: 0) == .queued)
        table[0] = nil
        #expect(table[0] == nil && table.count == 1 && table[1]?.id == 1)
    }

    @Test(arguments: [ToastRecord.State.queued, .shown])
    func aDrainedTableGivesItsMemoryBack(state: ToastRecord.State) {
        var table = RecordTable()
        for id in 1...100_000 {
            var record = Self.record(ToastID(id))
            record.state = state
            table[ToastID(id)] = record
        }
        #expect(table.capacity >= 100_000)
        for id in 1...99_990 { table[ToastID(id)] = nil }
        #expect(table.count == 10)
        #expect(table.capacity < 4_096)
        for id in 99_991...100_000 { #expect(table[ToastID(id)]?.id == ToastID(id)) }
    }

    /// A record moves between the shown array and the packed one as its
    /// state changes, and reads back equal from either.
    @Test func recordsMoveBetweenShownAndPacked() {
        var table = RecordTable()
        var model: [ToastID: ToastRecord] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let id = ToastID.random(in: 1...500, using: &generator)
            if Int.random(in: 0..<4, using: &generator) == 0 {
                table[id] = nil
                model[id] = nil
            } else {
                var record = Self.record(id)
                record.state = Bool.random(using: &generator) ? .queued : .shown
                record.expiresAt = Bool.random(using: &generator) ? Int64(step) : nil
                table[id] = record
                model[id] = record
            }
            #expect(table[id] == model[id])
            #expect(table.state(of: id) == model[id]?.state)
            #expect(table.expiresAt(of: id) == model[id]?.expiresAt)
        }
        #expect(table.count == model.count)
        #expect(table.values.sorted { $0.id < $1.id } == model.values.sorted { $0.id < $1.id })
    }
}

@Suite("The identity index")
struct IdentityIndexTests {
    typealias Identity = SchedulerStateMachine.Identity

    /// Random inserts and removals, with real hashes and with every identity
    /// forced onto a handful of hashes: the index tells them apart exactly
    /// as a dictionary would.
    @Test(arguments: [false, true])
    func behavesLikeADictionaryOfIdentities(colliding: Bool) {
        var index = colliding ? IdentityIndex(hash: { $0.hashValue & 3 }) : IdentityIndex()
        var model: [Identity: ToastID] = [:]
        var holders: [ToastID: Identity] = [:]
        var generator = SystemRandomNumberGenerator()
        var nextID: ToastID = 1
        for _ in 0..<20_000 {
            let identity: Identity =
                Bool.random(using: &generator)
                ? .reuse(scene: "s\(Int.random(in: 0..<3, using: &generator))", id: "r\(Int.random(in: 0..<40, using: &generator))")
                : .content(scene: "s", sender: "p\(Int.random(in: 0..<2, using: &generator))", title: nil, message: "m\(Int.random(in: 0..<40, using: &generator))")
            if let id = model[identity] {
                index.remove(identity, id)
                model[identity] = nil
                holders[id] = nil
            } else {
                let id = nextID
                nextID += 1
                index.insert(identity, id) { holders[$0] }
                model[identity] = id
                holders[id] = identity
            }
            #expect(index.find(identity) { holders[$0] } == model[identity])
        }
        for (identity, id) in model { #expect(index.find(identity) { holders[$0] } == id) }
        #expect(index.count == model.count)
    }

    /// The index's own hash tells apart identities that differ only in
    /// where one text ends and the next begins, in a title that is absent
    /// or empty, in the kind, in the sender, or in one byte of a long text; and it
    /// depends on the seed.
    @Test func theHashSeparatesNearIdentities() {
        let long = String(repeating: "build 123 finished; ", count: 8)
        var identities: [Identity] = []
        for scene in ["", "a", "ab", "abcdefgh", "abcdefghi"] {
            for text in ["", "c", "bc", "abcdefgh", "abcdefghij", long, long + "!", "!" + long] {
                identities.append(.reuse(scene: scene, id: text))
                identities.append(.content(scene: scene, sender: "", title: nil, message: text))
                identities.append(.content(scene: scene, sender: "", title: "", message: text))
                identities.append(.content(scene: scene, sender: "", title: text, message: ""))
                identities.append(.content(scene: scene, sender: text[...], title: nil, message: ""))
            }
        }
        for seed: UInt64 in [0, 1, 0xDEAD_BEEF] {
            let hashes = Set(identities.map { IdentityIndex.hash($0, seed: seed) })
            #expect(hashes.count == Set(identities).count, "seed \(seed)")
        }
        #expect(IdentityIndex.hash(identities[9], seed: 1) != IdentityIndex.hash(identities[9], seed: 2))
    }
}
