// SPDX-License-Identifier: Apache-2.0
extension BoundedRegex {
    /// The machine's sets of states as bit vectors, for a pattern too
    /// large for a table (`DFA`): a step is a few words ORed together per
    /// four live states, instead of following each live state through its
    /// jumps and splits (docs/BENCHMARKS.md, "The sets as bits").
    ///
    /// The states that wait for a scalar, or for `$` (those `add` keeps as
    /// members), are numbered as bits; one bit more stands for the match.
    /// Where a state that consumes a scalar leads (the states `add` keeps
    /// from the one after it, away from the text's start and end) is
    /// computed once, as a vector, and the vectors of each four
    /// neighbouring states are ORed ahead of time for each of the sixteen
    /// ways those four can be alive. A step then masks the live states
    /// with those that consume the scalar and ORs one row per non-zero
    /// group of four. What depends on the position (`^` at the start, `$`
    /// at the end) is left to the sets, once a text; so the answers are the
    /// sets' by construction, and a test compares the two on random
    /// patterns and texts.
    ///
    /// A class, like `DFA`, so that a regex stays small wherever a rule is copied.
    final class Bits: Sendable {
        /// Each bit's state, by bit.
        private let states: [UInt32]
        /// Each state's bit, by state (-1 for those without one).
        private let bitOf: [Int32]
        /// Words a vector takes: the states, and the match's bit after them.
        let words: Int
        /// The match's bit, after the states'.
        private var matchBit: Int { states.count }
        /// Each group of four states: where its rows are in `successors`,
        /// and which words of a vector they cover.
        private let groups: [Group]
        /// The rows: for a group, sixteen of `count` words, one for each way
        /// its four states can be alive; row `alive` is where those of them
        /// that consume the scalar lead. A row covers only the words its
        /// states reach (`Group.first`, `count`): most states lead near
        /// themselves, so a step ORs a few words a group, not the whole vector.
        private let successors: [UInt64]
        /// `ascii[byte * words ..< + words]`: the states that consume `byte`.
        private let ascii: [UInt64]
        /// The pattern's start, followed away from the text's start: what a
        /// search adds before every scalar after the first.
        private let start: [UInt64]

        struct Group {
            var offset: Int32
            var first: UInt16
            var count: UInt16
        }

        /// Largest table of rows, in bytes, above which a pattern keeps to
        /// the sets: more than `maxProgram` allows (2,000 states whose rows
        /// each cover the whole vector, 2 MiB), so that every pattern
        /// without a `DFA` has bits. The rules' heaviest pattern
        /// (`toast-bench regex`, 602 states) needs 96 KiB.
        static let maxTableBytes = 2 * 1024 * 1024

        init?(_ regex: BoundedRegex, maxTableBytes: Int = Bits.maxTableBytes) {
            let program = regex.program
            let size = program.count
            var bitOf = [Int32](repeating: -1, count: size)
            var states: [UInt32] = []
            for pc in program.indices {
                switch program[pc] {
                case .scalar, .any, .set, .lineEnd:
                    bitOf[pc] = Int32(states.count)
                    states.append(UInt32(pc))
                default: continue
                }
            }
            let words = states.count / 64 + 1
            let groupCount = (states.count + 3) / 4
            self.states = states
            self.bitOf = bitOf
            self.words = words
            let matchBit = states.count

            // Where each state leads, and the pattern's start: `add` over a
            // scratch set, at a position neither the start nor the end.
            var leads = [UInt64](repeating: 0, count: states.count * words)
            var start = [UInt64](repeating: 0, count: words)
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 4 * size + 2) { scratch in
                scratch.initialize(repeating: 0)
                let base = scratch.baseAddress!
                var set = StateSet(members: base, marks: base + size)
                func follow(_ pc: Int, into vector: UnsafeMutableBufferPointer<UInt64>) {
                    set.clear()
                    // On a match `add` stops early; the match's bit is all
                    // that matters then.
                    let matched = regex.add(pc, to: &set, at: 1, atEnd: false, stack: base + 2 * size)
                    for member in UnsafeBufferPointer(start: set.members, count: set.count) {
                        Self.insert(Int(bitOf[Int(member)]), into: vector.baseAddress!)
                    }
                    if matched { Self.insert(matchBit, into: vector.baseAddress!) }
                }
                leads.withUnsafeMutableBufferPointer { leads in
                    for (bit, pc) in states.enumerated() {
                        if case .lineEnd = program[Int(pc)] { continue }
                        follow(Int(pc) + 1, into: UnsafeMutableBufferPointer(rebasing: leads[bit * words ..< (bit + 1) * words]))
                    }
                }
                start.withUnsafeMutableBufferPointer { follow(0, into: $0) }
            }
            self.start = start

            // Each group's words, and its sixteen rows: a row is the one
            // without its lowest state, ORed with that state's vector.
            var groups: [Group] = []
            var successors: [UInt64] = []
            for group in 0..<groupCount {
                let bits = group * 4 ..< min(group * 4 + 4, states.count)
                let reached = (0..<words).filter { word in bits.contains { leads[$0 * words + word] != 0 } }
                let first = reached.first ?? 0
                let count = reached.last.map { $0 - first + 1 } ?? 0
                guard (successors.count + 16 * count) * 8 <= maxTableBytes else { return nil }
                groups.append(Group(offset: Int32(successors.count), first: UInt16(first), count: UInt16(count)))
                let offset = successors.count
                successors += repeatElement(0, count: 16 * count)
                for alive in 1..<16 {
                    let bit = group * 4 + alive.trailingZeroBitCount
                    guard bit < states.count else { continue }
                    let row = offset + alive * count
                    let without = offset + (alive & (alive - 1)) * count
                    for word in 0..<count { successors[row + word] = successors[without + word] | leads[bit * words + first + word] }
                }
            }
            self.groups = groups
            self.successors = successors

            var ascii = [UInt64](repeating: 0, count: 128 * words)
            ascii.withUnsafeMutableBufferPointer { ascii in
                for byte in 0..<128 {
                    Self.consumers(of: Unicode.Scalar(UInt8(byte)), among: states, in: regex, into: ascii.baseAddress! + byte * words)
                }
            }
            self.ascii = ascii
        }

        /// Whether the pattern matches somewhere in `utf8`.
        func matches(_ utf8: UnsafeBufferPointer<UInt8>, in regex: BoundedRegex) -> Bool {
            // An empty text is the start and the end at once: the sets' case.
            guard !utf8.isEmpty else { return regex.matchesBySets(utf8, from: 0, threads: []) }
            let size = regex.program.count
            // The sets' scratch (for the start and the end) and three vectors.
            return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 4 * size + 2) { scratch in
                scratch.initialize(repeating: 0)
                let base = scratch.baseAddress!
                var set = StateSet(members: base, marks: base + size)
                return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 3 * words) { vectors in
                    vectors.initialize(repeating: 0)
                    return successors.withUnsafeBufferPointer { rows in
                        groups.withUnsafeBufferPointer { groups in
                            ascii.withUnsafeBufferPointer { ascii in
                                start.withUnsafeBufferPointer { start in
                                    run(utf8, regex, &set, stack: base + 2 * size, vectors: vectors.baseAddress!,
                                        table: Table(rows: rows.baseAddress!, groups: groups.baseAddress!),
                                        ascii: ascii.baseAddress!, start: start.baseAddress!)
                                }
                            }
                        }
                    }
                }
            }
        }

        /// The machine over `utf8`, a scalar a step, as `BoundedRegex.run`.
        private func run(
            _ utf8: UnsafeBufferPointer<UInt8>, _ regex: BoundedRegex, _ set: inout StateSet, stack: UnsafeMutablePointer<UInt32>,
            vectors: UnsafeMutablePointer<UInt64>, table: Table, ascii: UnsafePointer<UInt64>, start: UnsafePointer<UInt64>
        ) -> Bool {
            let words = words
            var current = vectors
            var next = vectors + words
            let consuming = vectors + 2 * words
            // Before the first scalar, where `^` holds: the sets follow the start.
            if regex.add(0, to: &set, at: 0, atEnd: false, stack: stack) { return true }
            for member in UnsafeBufferPointer(start: set.members, count: set.count) { Self.insert(Int(bitOf[Int(member)]), into: current) }
            var position = 0
            while true {
                var alive: UInt64 = 0
                for word in 0..<words { alive |= current[word] }
                if alive == 0 {
                    if regex.anchored { return false }
                    if let leads = regex.leads {
                        // Only one of `leads` can begin a match.
                        guard let found = BoundedRegex.next(leads, in: utf8, from: position) else { return false }
                        position = found
                    }
                }
                // A search starts the pattern again before every scalar.
                if position > 0 && !regex.anchored {
                    for word in 0..<words { current[word] |= start[word] }
                }
                let (scalar, width) = BoundedRegex.decode(utf8, at: position)
                if scalar.isASCII {
                    step(current, ascii + Int(scalar.value) * words, into: next, table)
                } else {
                    for word in 0..<words { consuming[word] = 0 }
                    Self.consumers(of: scalar, among: states, in: regex, into: consuming)
                    step(current, consuming, into: next, table)
                }
                if contains(matchBit, next) { return true }
                position += width
                if position == utf8.count {
                    // `$` holds now: the sets follow what is alive, then a search's start.
                    set.clear()
                    for bit in 0..<matchBit where contains(bit, next) {
                        if regex.add(Int(states[bit]), to: &set, at: position, atEnd: true, stack: stack) { return true }
                    }
                    set.clear()
                    return !regex.anchored && regex.add(0, to: &set, at: position, atEnd: true, stack: stack)
                }
                swap(&current, &next)
            }
        }

        /// The rows' size in bytes.
        var tableBytes: Int { successors.count * 8 }

        /// Words a step ORs at most for one scalar, when every state is alive.
        var wordsPerStep: Int { groups.reduce(0) { $0 + Int($1.count) } }

        /// The rows and their groups, as a step reads them.
        struct Table {
            let rows: UnsafePointer<UInt64>
            let groups: UnsafePointer<Group>
        }

        /// One scalar: the states of `current` that consume it (`mask`), and
        /// where they lead, into `next`: a row per group of four with one alive.
        @inline(__always)
        private func step(
            _ current: UnsafeMutablePointer<UInt64>, _ mask: UnsafePointer<UInt64>, into next: UnsafeMutablePointer<UInt64>, _ table: Table
        ) {
            let words = words
            for word in 0..<words { next[word] = 0 }
            for word in 0..<words {
                var live = current[word] & mask[word]
                while live != 0 {
                    let shift = live.trailingZeroBitCount & ~3
                    let group = table.groups[word * 16 + shift / 4]
                    let count = Int(group.count)
                    let row = table.rows + Int(group.offset) + Int((live >> UInt64(shift)) & 15) * count
                    let target = next + Int(group.first)
                    for index in 0..<count { target[index] |= row[index] }
                    live &= ~(15 << UInt64(shift))
                }
            }
        }

        @inline(__always)
        private static func insert(_ bit: Int, into vector: UnsafeMutablePointer<UInt64>) {
            vector[bit >> 6] |= 1 << UInt64(bit & 63)
        }

        @inline(__always)
        private func contains(_ bit: Int, _ vector: UnsafeMutablePointer<UInt64>) -> Bool {
            vector[bit >> 6] & (1 << UInt64(bit & 63)) != 0
        }

        /// Adds the states that consume `scalar` to `vector`: each ASCII
        /// byte's once, when the pattern is compiled, and a scalar outside
        /// ASCII's as the text meets it.
        private static func consumers(
            of scalar: Unicode.Scalar, among states: [UInt32], in regex: BoundedRegex, into vector: UnsafeMutablePointer<UInt64>
        ) {
            for (bit, pc) in states.enumerated() where regex.consumes(regex.program[Int(pc)], scalar) {
                insert(bit, into: vector)
            }
        }
    }
}
