// SPDX-License-Identifier: Apache-2.0
/// A regular expression whose matching time is linear in the text: the
/// rules' `title_regex` and `message_regex`, which run on the event loop.
///
/// Why not a library: Swift's `Regex` backtracks (exponential on `(a+)+$`),
/// and glibc's `regexec` is quadratic for a search that fails, because it
/// starts again at every position: `(a|aa)*b` against a 4 KiB message took
/// 41 ms, and 167 ms against 8 KiB, on this machine (docs/BENCHMARKS.md,
/// "Rules"). This is a Pike VM (Thompson's construction simulated over sets
/// of states): one pass over the text, at most `maxProgram` states per
/// character, whatever the pattern; a test measures the status round trip
/// while pathological patterns meet 4 KiB messages. For a pattern whose
/// table is small (every rule pattern we have seen), those sets are made
/// into a table over ASCII once, when the pattern is compiled
/// (`BoundedRegex+DFA.swift`): a step is then an add and a load, 17 to 25
/// times faster than following the sets on the benchmark's pathological
/// patterns (docs/BENCHMARKS.md, section 7). A pattern too large for a
/// table gets the same sets as bit vectors (`BoundedRegex+Bits.swift`): a
/// step ORs a few precomputed words per four live states.
///
/// The syntax is POSIX extended (ERE) as glibc reads it without flags,
/// which a differential test checks against `regexec`: literals, `.`,
/// bracket expressions with ranges, negation and `[:class:]`, `^`, `$`,
/// groups, `|`, `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`, and `\` escapes;
/// plus `\d`, `\w`, `\s` and their negations. Back-references are refused:
/// no linear matcher can have them. Matching is by Unicode scalar.
#if canImport(Glibc)
import Glibc  // memchr(3), memcmp(3)
#endif

public struct BoundedRegex: Sendable {
    public let pattern: String
    let program: [Instruction]
    /// The bracket expressions, which `.set(index)` names (so that an
    /// instruction is a plain value, copied without reference counting).
    let sets: [ScalarSet]
    /// Each of `sets` over ASCII, as a mask: an ASCII scalar is looked up
    /// in it instead of the set's ranges and classes.
    let asciiSets: [ByteMask]
    /// Every match starts at the text's start (`^` leads every branch).
    let anchored: Bool
    /// What a match's first scalar must be, when the pattern says (no `.`
    /// or empty match at its start): positions that cannot start a match
    /// are skipped without following the pattern's start.
    private let first: [Instruction]?
    /// The bytes a match can begin with, when `first` is a few ASCII
    /// scalars: while no thread is alive the machine jumps to the next of
    /// them (`memchr` for one) instead of stepping scalar by scalar.
    let leads: [UInt8]?
    /// The machine's sets of states made into a table over ASCII, when the
    /// pattern allows a small one (`BoundedRegex+DFA.swift`): a step is a
    /// load instead of following every live state.
    private(set) var dfa: DFA?
    /// The sets of states as bit vectors, for every pattern without a
    /// table (`BoundedRegex+Bits.swift`).
    private(set) var bits: Bits?
    /// Literals (UTF-8) of which every match contains one, when the pattern
    /// says: a text with none of them is refused without running the
    /// machine (`memchr` over the bytes is many times faster than a step of
    /// the machine per scalar).
    let required: [[UInt8]]?

    /// Longest pattern accepted, in bytes.
    public static let maxPatternBytes = 256
    /// Most states a compiled pattern may have (repetitions count each copy).
    public static let maxProgram = 2_000

    /// Worst-case steps per byte of text, the rules' budget's unit: a
    /// table step when the pattern has a table, else every state of the
    /// program, as the sets of states would follow them. The bits, which
    /// run such a pattern, take several times less: the words they OR a
    /// byte stay near the program's states (1,981 states and 2,168 words
    /// for the worst pattern the tests know), and an OR costs a fraction
    /// of a state followed. The charge is left as the sets', so that no
    /// file the budget took before is refused now.
    public var stepsPerByte: Int { dfa != nil ? 1 : program.count }

    public struct Invalid: Error, Sendable, Hashable {
        public let message: String
    }

    public init(_ pattern: String) throws(Invalid) {
        guard pattern.utf8.count <= Self.maxPatternBytes else {
            throw Invalid(message: "a pattern is at most \(Self.maxPatternBytes) bytes")
        }
        self.pattern = pattern
        var parser = Parser(Array(pattern.unicodeScalars))
        let tree = try parser.parse()
        var compiler = Compiler()
        try compiler.emit(tree)
        compiler.program.append(.match)
        program = compiler.program
        sets = compiler.sets
        asciiSets = sets.map { set in
            var mask = ByteMask()
            for byte in 0..<128 where set.contains(Unicode.Scalar(UInt8(byte))) { mask.insert(UInt8(byte)) }
            return mask
        }
        (anchored, first) = Self.analyzeStart(program)
        leads = first.flatMap(Self.leadBytes)
        required = Self.requiredLiterals(tree)
        dfa = DFA(self)
        if dfa == nil { bits = Bits(self) }
    }

    /// Most alternatives the prefilter looks for; a pattern with more has none.
    static let maxRequiredLiterals = 8

    /// Literals of which every match of `node` contains one, or nil when the
    /// pattern does not say (an empty match, `.`, a set, an optional part).
    /// Of a sequence's candidates (each run of plain scalars, each part's
    /// own literals) the one whose shortest literal is longest is kept.
    static func requiredLiterals(_ node: Node) -> [[UInt8]]? {
        switch node {
        case .scalar(let scalar):
            return [Array(String(scalar).utf8)]
        case .repeated(let inner, let min, _):
            return min >= 1 ? requiredLiterals(inner) : nil
        case .alternation(let branches):
            var all: [[UInt8]] = []
            for branch in branches {
                guard let literals = requiredLiterals(branch) else { return nil }
                all += literals
            }
            return all.count <= maxRequiredLiterals ? all : nil
        case .sequence(let items):
            var best: [[UInt8]]?
            func consider(_ candidate: [[UInt8]]) {
                let shortest = candidate.lazy.map(\.count).min() ?? 0
                guard shortest > 0 else { return }
                if let best, (best.lazy.map(\.count).min() ?? 0, -best.count) >= (shortest, -candidate.count) { return }
                best = candidate
            }
            var run: [UInt8] = []
            for item in items {
                if case .scalar(let scalar) = item {
                    run += String(scalar).utf8
                    continue
                }
                if !run.isEmpty { consider([run]) }
                run = []
                if let literals = requiredLiterals(item) { consider(literals) }
            }
            if !run.isEmpty { consider([run]) }
            return best
        case .empty, .any, .set, .lineStart, .lineEnd:
            return nil
        }
    }

    /// Whether `utf8` contains one of `required` (always, when there are none).
    private func mayMatch(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let required else { return true }
        return required.contains { $0.withUnsafeBufferPointer { Self.find($0, in: utf8) } }
    }

    /// Whether `needle` (not empty) occurs in `haystack`: memchr for its
    /// first byte, memcmp for the rest (Glibc's module has no memmem).
    package static func find(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = haystack.baseAddress, needle.count <= haystack.count else { return false }
        let first = Int32(needle[0])
        let last = base + (haystack.count - needle.count)
        var cursor = base
        while cursor <= last {
            guard let hit = memchr(cursor, first, last - cursor + 1) else { return false }
            let start = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(start, needle.baseAddress!, needle.count) == 0 { return true }
            cursor = start + 1
        }
        return false
    }

    /// Follows the pattern's start through jumps and splits: whether every
    /// path passes `^` first, and which instructions can consume its first scalar.
    private static func analyzeStart(_ program: [Instruction]) -> (anchored: Bool, first: [Instruction]?) {
        // Each path remembers whether it passed `^`.
        var seen = Set<[Int]>()
        var stack = [(pc: 0, anchored: false)]
        var consumers: [Instruction] = []
        var unanchoredPath = false
        var anything = false
        while let (pc, passed) = stack.popLast() {
            guard seen.insert([pc, passed ? 1 : 0]).inserted else { continue }
            switch program[pc] {
            case .jump(let target): stack.append((target, passed))
            case .split(let a, let b): stack += [(a, passed), (b, passed)]
            case .lineStart: stack.append((pc + 1, true))
            case .lineEnd, .match, .any:
                if !passed { unanchoredPath = true }
                anything = true
            case .scalar, .set:
                if !passed { unanchoredPath = true }
                consumers.append(program[pc])
            }
        }
        return (!unanchoredPath, anything ? nil : consumers)
    }

    /// The distinct bytes of `first` when each is an ASCII scalar (at most four).
    private static func leadBytes(_ first: [Instruction]) -> [UInt8]? {
        var bytes: [UInt8] = []
        for instruction in first {
            guard case .scalar(let scalar) = instruction, scalar.isASCII else { return nil }
            if !bytes.contains(UInt8(scalar.value)) { bytes.append(UInt8(scalar.value)) }
        }
        return bytes.count <= 4 ? bytes : nil
    }

    /// The offset of the next byte from `offset` on that is one of `leads`.
    /// ASCII bytes never occur inside a multi-byte scalar, so it is a scalar's start.
    static func next(_ leads: [UInt8], in utf8: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int? {
        guard offset < utf8.count, let base = utf8.baseAddress else { return nil }
        if leads.count == 1 {
            guard let hit = memchr(base + offset, Int32(leads[0]), utf8.count - offset) else { return nil }
            return UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - base
        }
        for index in offset..<utf8.count where leads.contains(utf8[index]) { return index }
        return nil
    }

    /// The scalar at `offset` of valid UTF-8, and its length in bytes.
    @inline(__always)
    static func decode(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) -> (Unicode.Scalar, Int) {
        let lead = UInt32(utf8[offset])
        if lead < 0x80 { return (Unicode.Scalar(UInt8(lead)), 1) }
        let width = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        var value = lead & (0x7F >> UInt32(width))
        for index in 1..<width { value = value << 6 | UInt32(utf8[offset + index] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", width)
    }

    func consumes(_ instruction: Instruction, _ scalar: Unicode.Scalar) -> Bool {
        switch instruction {
        case .scalar(let expected): scalar == expected
        case .any: true
        case .set(let index):
            scalar.isASCII ? asciiSets[index].contains(UInt8(truncatingIfNeeded: scalar.value)) : sets[index].contains(scalar)
        default: false
        }
    }

    /// Whether the pattern matches anywhere in `text`.
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(matches)
    }

    /// Whether the pattern matches anywhere in `utf8`, valid UTF-8 (a string's bytes).
    package func matches(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        mayMatch(utf8) && matchesByMachine(utf8)
    }

    /// The machine alone, without the literal prefilter: what a text that
    /// holds the pattern's literals costs (the benchmark's slow case), and
    /// the reference the prefilter's tests compare with. The table when
    /// there is one, handing over to the sets of states at the first
    /// scalar outside ASCII.
    @_spi(Benchmarks) public func matchesByMachine(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(matchesByMachine)
    }

    private func matchesByMachine(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        if let dfa { return dfa.matches(utf8, in: self) }
        if let bits { return bits.matches(utf8, in: self) }
        return matchesBySets(utf8, from: 0, threads: [])
    }

    /// The sets of states alone (never the table): the reference the
    /// table's tests compare with, and the benchmark's row before it.
    @_spi(Benchmarks) public func matchesBySets(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matchesBySets($0, from: 0, threads: []) }
    }

    /// The sets of states over `utf8` from byte `offset` (a scalar's start),
    /// with `threads` alive there: none from the start, or the table's
    /// state where it met a scalar outside ASCII.
    func matchesBySets(_ utf8: UnsafeBufferPointer<UInt8>, from offset: Int, threads: [UInt32]) -> Bool {
        let size = program.count
        // One scratch allocation per match: two state sets and the stack.
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 6 * size + 2) { scratch in
            scratch.initialize(repeating: 0)
            let base = scratch.baseAddress!
            var current = StateSet(members: base, marks: base + size)
            var next = StateSet(members: base + 2 * size, marks: base + 3 * size)
            for pc in threads { _ = current.insert(Int(pc)) }
            return run(utf8, from: offset, &current, &next, stack: base + 4 * size)
        }
    }

    /// The machine over `utf8`, a scalar a step; `position` is the byte
    /// offset of the scalar (only whether it is 0 matters, for `^`).
    private func run(
        _ utf8: UnsafeBufferPointer<UInt8>, from offset: Int, _ current: inout StateSet, _ next: inout StateSet,
        stack: UnsafeMutablePointer<UInt32>
    ) -> Bool {
        var position = offset
        while true {
            if current.count == 0, !anchored, let leads {
                // No thread is alive, and only one of `leads` can begin a
                // match (`first` is set: no match is empty or ends at `$`).
                guard let found = Self.next(leads, in: utf8, from: position) else { return false }
                position = found
            }
            let atEnd = position == utf8.count
            let (scalar, width): (Unicode.Scalar?, Int) = atEnd ? (nil, 0) : Self.decode(utf8, at: position)
            // A match may start at any position (at the first only, when
            // anchored): a thread at the pattern's start, unless this
            // scalar cannot begin a match.
            if position == 0 || !anchored {
                var useful = true
                if let first {
                    useful = false
                    if let scalar { useful = first.contains { consumes($0, scalar) } }
                }
                if useful, add(0, to: &current, at: position, atEnd: atEnd, stack: stack) { return true }
            }
            guard let this = scalar else { return false }
            if current.count == 0 && anchored { return false }
            next.clear()
            for index in 0..<current.count {
                let pc = Int(current.members[index])
                if consumes(program[pc], this), add(pc + 1, to: &next, at: position + width, atEnd: false, stack: stack) {
                    return true
                }
            }
            position += width
            if position == utf8.count {
                // `$` can hold only now: follow the threads again knowing it
                // (the old set, no longer needed, holds them meanwhile).
                current.clear()
                for index in 0..<next.count { _ = current.insert(Int(next.members[index])) }
                next.clear()
                for index in 0..<current.count where add(Int(current.members[index]), to: &next, at: position, atEnd: true, stack: stack) {
                    return true
                }
            }
            swap(&current, &next)
        }
    }

    /// Adds a thread at `pc`, following jumps, splits and assertions; true
    /// when it reaches `match`. The stack holds at most two entries per
    /// state (each state, once marked, pushes at most two). Only the states
    /// that wait for a scalar or for `$` are kept as members of the set:
    /// the step goes through those alone, not through every split and jump
    /// passed on the way (half of a step's states, and of its time, on the
    /// rules' heaviest pattern: docs/BENCHMARKS.md, "Fewer states in a
    /// step of the sets").
    func add(_ pc: Int, to set: inout StateSet, at position: Int, atEnd: Bool, stack: UnsafeMutablePointer<UInt32>) -> Bool {
        var depth = 1
        stack[0] = UInt32(pc)
        while depth > 0 {
            depth -= 1
            let pc = Int(stack[depth])
            guard set.mark(pc) else { continue }
            switch program[pc] {
            case .match: return true
            case .jump(let target):
                stack[depth] = UInt32(target)
                depth += 1
            case .split(let first, let second):
                stack[depth] = UInt32(second)
                stack[depth + 1] = UInt32(first)
                depth += 2
            case .lineStart:
                if position == 0 {
                    stack[depth] = UInt32(pc + 1)
                    depth += 1
                }
            case .lineEnd:
                if atEnd {
                    stack[depth] = UInt32(pc + 1)
                    depth += 1
                } else {
                    set.keep(pc)
                }
            case .scalar, .any, .set: set.keep(pc)
            }
        }
        return false
    }

    // MARK: - Program

    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        case any
        /// An index into `sets`.
        case set(Int)
        case split(Int, Int)
        case jump(Int)
        case lineStart
        case lineEnd
        case match
    }

    /// The states of one step: a sparse set over scratch memory, cleared in O(1).
    struct StateSet {
        let members: UnsafeMutablePointer<UInt32>
        /// `marks[pc] == generation` when pc is in the set.
        let marks: UnsafeMutablePointer<UInt32>
        var count = 0
        /// Starts above the marks' 0; a step clears once, so it never wraps
        /// on a text of the protocol's length.
        var generation: UInt32 = 1

        mutating func insert(_ pc: Int) -> Bool {
            guard mark(pc) else { return false }
            keep(pc)
            return true
        }

        /// Marks `pc` as reached in this step; false if it was already.
        mutating func mark(_ pc: Int) -> Bool {
            guard marks[pc] != generation else { return false }
            marks[pc] = generation
            return true
        }

        /// Makes a marked `pc` a member.
        mutating func keep(_ pc: Int) {
            members[count] = UInt32(pc)
            count += 1
        }

        mutating func clear() {
            count = 0
            generation &+= 1
        }
    }

    /// A bracket expression: ranges and named classes, possibly negated.
    struct ScalarSet: Sendable {
        var ranges: [ClosedRange<UInt32>] = []
        var classes: [NamedClass] = []
        var negated = false

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let inside = ranges.contains { $0.contains(scalar.value) } || classes.contains { $0.contains(scalar) }
            return inside != negated
        }
    }

    enum NamedClass: String, Sendable {
        case alpha, digit, alnum, upper, lower, space, punct, xdigit, blank, cntrl, print, graph
        /// `\w`: letters, digits and underscore.
        case word

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch self {
            case .alpha: return properties.isAlphabetic
            case .digit: return ("0"..."9").contains(scalar)
            case .alnum: return properties.isAlphabetic || ("0"..."9").contains(scalar)
            case .upper: return properties.isUppercase
            case .lower: return properties.isLowercase
            case .space: return properties.isWhitespace
            case .blank: return scalar == " " || scalar == "\t"
            case .punct: return scalar.isASCII && (0x21...0x7E).contains(scalar.value) && !properties.isAlphabetic && !("0"..."9").contains(scalar)
            case .xdigit: return ("0"..."9").contains(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
            case .cntrl: return properties.generalCategory == .control
            case .print: return properties.generalCategory != .control
            case .graph: return properties.generalCategory != .control && !properties.isWhitespace
            case .word: return properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
            }
        }
    }

}
