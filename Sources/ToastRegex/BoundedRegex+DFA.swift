// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

extension BoundedRegex {
    /// The machine's sets of states, computed once when the pattern is
    /// compiled, as a table over ASCII: a step is one load instead of
    /// following every live state (the subset construction, done ahead of
    /// time rather than lazily, so that the regex stays an immutable value
    /// the event loop reads without a lock).
    ///
    /// A state is the set of the machine's states alive before a scalar
    /// (the pattern's start included, for a search), so its answers are the
    /// machine's by construction; a test compares the two on random
    /// patterns and texts. What the table does not cover goes to the sets:
    /// a scalar outside ASCII hands the state's set over to them, and a
    /// pattern whose table would pass the bounds below has none (the sets
    /// are linear in the text either way; the table only makes them faster).
    ///
    /// A class, so that a regex stays two words wide wherever a rule's
    /// pattern is copied (as a struct, each rule check copied it whole).
    final class DFA: Sendable {
        /// Each ASCII byte's class: bytes that every instruction treats
        /// alike share a column of the table.
        private let classOf: [UInt8]
        private let classCount: Int
        /// `transitions[row + class]`: the next state's row (its index
        /// times `classCount`, so that a step is an add and a load), or
        /// `Self.matched` when a match ends with that byte.
        private let transitions: [UInt16]
        /// Whether a text ending in the state matches (`$` holds there), by state.
        private let acceptsAtEnd: [Bool]
        /// Each state's set of the machine's states, for the hand-over.
        private let threads: [[UInt32]]
        /// The row before the text's first byte (`^` holds there), or
        /// `Self.matched` when an empty match at the start matches any text.
        private let start: UInt16
        /// A search's row with nothing alive but the pattern's start: the
        /// bytes that keep it there are skipped without the step's chain of
        /// loads (`memchr` when one byte can begin a match). `Self.none` if none.
        private let idle: UInt16
        /// An anchored pattern's row with nothing alive (no match any more),
        /// or `Self.none`.
        private let dead: UInt16

        static let matched = UInt16.max
        static let none = UInt16.max - 1
        /// Most entries of a table (4 KiB of them): the typical rule's has
        /// a few hundred, and a pattern that needs more (`(a|b)*a(a|b){12}`
        /// needs thousands of states) keeps to the sets.
        static let maxEntries = 2_048
        /// Largest program given a table: building one follows every state
        /// of the program for each entry, and the rules' patterns are far
        /// smaller (the benchmark's twenty rules' largest has 20 states).
        static let maxProgram = 512
        /// Most states followed while building (each closure's size, summed):
        /// bounds what a pattern costs when the configuration is read (in
        /// release, a pattern that reaches it costs under 2 ms; the twenty
        /// rules' take 20 to 70 µs each).
        static let maxWork = 50_000

        init?(_ regex: BoundedRegex) {
            let program = regex.program
            let size = program.count
            guard size <= Self.maxProgram else { return nil }
            // Which ASCII bytes each instruction consumes (an index into
            // `masks`, where each distinct one is kept once; 0 is none).
            var masks: [ByteMask] = [ByteMask()]
            var maskIndex: [ByteMask: Int] = [ByteMask(): 0]
            var maskOf = [Int](repeating: 0, count: size)
            var setMasks: [Int: ByteMask] = [:]
            for pc in program.indices {
                var mask = ByteMask()
                switch program[pc] {
                case .scalar(let scalar) where scalar.isASCII: mask.insert(UInt8(scalar.value))
                case .any: mask = ByteMask(low: .max, high: .max)
                case .set(let set):
                    if let known = setMasks[set] {
                        mask = known
                    } else {
                        for byte in 0..<128 where regex.sets[set].contains(Unicode.Scalar(UInt8(byte))) { mask.insert(UInt8(byte)) }
                        setMasks[set] = mask
                    }
                default: continue
                }
                if let known = maskIndex[mask] {
                    maskOf[pc] = known
                } else {
                    maskOf[pc] = masks.count
                    maskIndex[mask] = masks.count
                    masks.append(mask)
                }
            }
            // Classes: bytes that every mask treats alike, each with the
            // first byte of it, which stands for the class.
            var classOf = [UInt8](repeating: 0, count: 128)
            var classes: [[UInt64]: UInt8] = [:]
            var representatives: [UInt8] = []
            var signature = [UInt64](repeating: 0, count: (masks.count + 63) / 64)
            for byte in 0..<128 {
                for word in signature.indices { signature[word] = 0 }
                for index in masks.indices where masks[index].contains(UInt8(byte)) { signature[index >> 6] |= 1 << UInt64(index & 63) }
                if let known = classes[signature] {
                    classOf[byte] = known
                } else {
                    classes[signature] = UInt8(representatives.count)
                    classOf[byte] = UInt8(representatives.count)
                    representatives.append(UInt8(byte))
                }
            }
            let classCount = representatives.count

            // Each state is known by its set as a bitmap of the program.
            var index: [[UInt64]: UInt16] = [:]
            var threads: [[UInt32]] = []
            var transitions: [UInt16] = []
            var acceptsAtEnd: [Bool] = []
            var matchesAtStart = false
            var idleState: UInt16?
            let built: Bool = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 3 * size + 2) { scratch in
                scratch.initialize(repeating: 0)
                let base = scratch.baseAddress!
                var set = StateSet(members: base, marks: base + size)
                let stack = base + 2 * size
                var key = [UInt64](repeating: 0, count: (size + 63) / 64)
                var work = 0
                /// Adds the states reached from `pc` through jumps, splits and
                /// assertions to `set`; true when one of them is the match.
                func follow(_ pc: Int, atStart: Bool = false, atEnd: Bool = false) -> Bool {
                    regex.add(pc, to: &set, at: atStart ? 0 : 1, atEnd: atEnd, stack: stack)
                }
                /// The state for `set`, made when new; nil past the bound.
                func state() -> UInt16? {
                    work += set.count
                    guard work <= Self.maxWork else { return nil }
                    for word in key.indices { key[word] = 0 }
                    for member in UnsafeBufferPointer(start: set.members, count: set.count) {
                        key[Int(member) >> 6] |= 1 << (UInt64(member) & 63)
                    }
                    if let known = index[key] { return known }
                    guard (threads.count + 1) * classCount <= Self.maxEntries else { return nil }
                    let new = UInt16(threads.count)
                    let members = Array(UnsafeBufferPointer(start: set.members, count: set.count))
                    index[key] = new
                    threads.append(members)
                    transitions.append(contentsOf: repeatElement(0, count: classCount))
                    set.clear()
                    acceptsAtEnd.append(members.contains { follow(Int($0), atEnd: true) })
                    return new
                }
                set.clear()
                if follow(0, atStart: true) {
                    // The empty match at the start: every text matches.
                    matchesAtStart = true
                    return true
                }
                guard state() == 0 else { return false }
                if !regex.anchored {
                    // Nothing alive but the pattern's start.
                    set.clear()
                    _ = follow(0)
                    guard let idle = state() else { return false }
                    idleState = idle
                }
                var pending = 0
                while pending < threads.count {
                    for (column, byte) in representatives.enumerated() {
                        set.clear()
                        // A search starts the pattern again before every scalar.
                        var matched = !regex.anchored && follow(0)
                        for pc in threads[pending] where !matched && masks[maskOf[Int(pc)]].contains(byte) {
                            matched = follow(Int(pc) + 1)
                        }
                        if matched {
                            transitions[pending * classCount + column] = Self.matched
                            continue
                        }
                        guard let target = state() else { return false }
                        transitions[pending * classCount + column] = target
                    }
                    pending += 1
                }
                return true
            }
            guard built else { return nil }
            // State numbers become rows (`maxEntries` keeps them under `none`).
            let row = { (state: UInt16) in state &* UInt16(classCount) }
            self.classOf = classOf
            self.classCount = classCount
            self.transitions = transitions.map { $0 == Self.matched ? $0 : row($0) }
            self.acceptsAtEnd = acceptsAtEnd
            self.threads = threads
            start = matchesAtStart ? Self.matched : 0
            idle = idleState.map(row) ?? Self.none
            dead = regex.anchored ? index[[UInt64](repeating: 0, count: (size + 63) / 64)].map(row) ?? Self.none : Self.none
        }

        /// How many states the table has (for tests and the benchmark).
        var stateCount: Int { threads.count }

        /// Whether the pattern matches somewhere in `utf8`: the table while
        /// the bytes are ASCII, then the sets from the state it reached.
        func matches(_ utf8: UnsafeBufferPointer<UInt8>, in regex: BoundedRegex) -> Bool {
            guard start != Self.matched else { return true }
            guard !utf8.isEmpty else { return regex.matchesBySets(utf8, from: 0, threads: []) }
            // From the idle row: memchr to the one byte a match can begin
            // with; with several, a run over the bytes that keep it idle.
            let lead = regex.leads.flatMap { $0.count == 1 ? $0 : nil }
            let classCount = classCount
            return transitions.withUnsafeBufferPointer { table in
                classOf.withUnsafeBufferPointer { classOf in
                    var row = start
                    var offset = 0
                    while offset < utf8.count {
                        if row == idle {
                            // Nothing is alive but the pattern's start.
                            if let lead {
                                guard let found = BoundedRegex.next(lead, in: utf8, from: offset) else { return false }
                                offset = found
                            } else {
                                while offset < utf8.count, utf8[offset] < 0x80, table[Int(idle) &+ Int(classOf[Int(utf8[offset])])] == idle {
                                    offset += 1
                                }
                                if offset == utf8.count { break }
                            }
                        }
                        let byte = utf8[offset]
                        guard byte < 0x80 else {
                            return regex.matchesBySets(utf8, from: offset, threads: offset == 0 ? [] : threads[Int(row) / classCount])
                        }
                        row = table[Int(row) &+ Int(classOf[Int(byte)])]
                        if row == Self.matched { return true }
                        if row == dead { return false }
                        offset += 1
                    }
                    return acceptsAtEnd[Int(row) / classCount]
                }
            }
        }
    }

    /// A set of ASCII bytes.
    struct ByteMask: Hashable {
        var low: UInt64 = 0
        var high: UInt64 = 0

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }

        func contains(_ byte: UInt8) -> Bool {
            byte < 64 ? low & (1 << UInt64(byte)) != 0 : high & (1 << UInt64(byte - 64)) != 0
        }
    }
}
