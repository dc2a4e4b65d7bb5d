// SPDX-License-Identifier: Apache-2.0
/// The pattern's syntax tree (`Parser`, POSIX ERE as glibc reads it) and
/// its program (`Compiler`, Thompson's construction).
extension BoundedRegex {
    // MARK: - Parsing

    indirect enum Node {
        case empty
        case scalar(Unicode.Scalar)
        case any
        case set(ScalarSet)
        case lineStart
        case lineEnd
        case sequence([Node])
        case alternation([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func parse() throws(Invalid) -> Node {
            let node = try alternation()
            if let extra = peek { throw Invalid(message: "unexpected '\(extra)' at offset \(index)") }
            return node
        }

        mutating func alternation() throws(Invalid) -> Node {
            var branches = [try sequence()]
            while peek == "|" {
                index += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func sequence() throws(Invalid) -> Node {
            var items: [Node] = []
            while let scalar = peek, scalar != "|", scalar != ")" {
                var atom = try self.atom()
                while let quantifier = peek, "*+?{".unicodeScalars.contains(quantifier) {
                    if case .lineStart = atom { throw Invalid(message: "nothing to repeat before '\(quantifier)'") }
                    atom = try repetition(of: atom)
                }
                items.append(atom)
            }
            return items.count == 1 ? items[0] : items.isEmpty ? .empty : .sequence(items)
        }

        mutating func repetition(of atom: Node) throws(Invalid) -> Node {
            let quantifier = scalars[index]
            index += 1
            switch quantifier {
            case "*": return .repeated(atom, min: 0, max: nil)
            case "+": return .repeated(atom, min: 1, max: nil)
            case "?": return .repeated(atom, min: 0, max: 1)
            default:
                let low = number()
                var high: Int? = low
                if peek == "," {
                    index += 1
                    high = number()
                }
                guard peek == "}", let low else { throw Invalid(message: "a bound is {m}, {m,} or {m,n}") }
                index += 1
                if let high, high < low { throw Invalid(message: "in {\(low),\(high)} the bounds are reversed") }
                guard low <= 255, (high ?? 0) <= 255 else { throw Invalid(message: "a bound is at most 255") }
                return .repeated(atom, min: low, max: high)
            }
        }

        mutating func number() -> Int? {
            var value: Int?
            while let scalar = peek, ("0"..."9").contains(scalar) {
                value = min(10_000, (value ?? 0) * 10 + Int(scalar.value - 48))
                index += 1
            }
            return value
        }

        mutating func atom() throws(Invalid) -> Node {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case ".": return .any
            case "^": return .lineStart
            case "$": return .lineEnd
            case "(":
                let inner = peek == ")" ? .empty : try alternation()
                guard peek == ")" else { throw Invalid(message: "a '(' is not closed") }
                index += 1
                // A group may be repeated even when it holds only an anchor.
                return .sequence([inner])
            case "[": return .set(try bracket())
            case "\\": return try escape()
            case "*", "+", "?": throw Invalid(message: "nothing to repeat before '\(scalar)'")
            case "{":
                // A brace that starts no bound is a literal, as in glibc.
                return .scalar(scalar)
            default: return .scalar(scalar)
            }
        }

        mutating func escape() throws(Invalid) -> Node {
            guard let scalar = peek else { throw Invalid(message: "the pattern ends with a lone '\\'") }
            index += 1
            switch scalar {
            case "1"..."9":
                throw Invalid(message: "back-references (\\1 to \\9) are not supported: no matcher can run them in linear time")
            case "d": return .set(ScalarSet(classes: [.digit]))
            case "D": return .set(ScalarSet(classes: [.digit], negated: true))
            case "w": return .set(ScalarSet(classes: [.word]))
            case "W": return .set(ScalarSet(classes: [.word], negated: true))
            case "s": return .set(ScalarSet(classes: [.space]))
            case "S": return .set(ScalarSet(classes: [.space], negated: true))
            case "n": return .scalar("\n")
            case "t": return .scalar("\t")
            default: return .scalar(scalar)
            }
        }

        mutating func bracket() throws(Invalid) -> ScalarSet {
            var set = ScalarSet()
            if peek == "^" {
                set.negated = true
                index += 1
            }
            var first = true
            while true {
                guard let scalar = peek else { throw Invalid(message: "a '[' is not closed") }
                if scalar == "]" && !first {
                    index += 1
                    return set
                }
                first = false
                if scalar == "[", index + 1 < scalars.count, scalars[index + 1] == ":" {
                    let start = index + 2
                    var end = start
                    while end + 1 < scalars.count, !(scalars[end] == ":" && scalars[end + 1] == "]") { end += 1 }
                    let name = String(String.UnicodeScalarView(scalars[start..<min(end, scalars.count)]))
                    guard end + 1 < scalars.count, let named = NamedClass(rawValue: name), named != .word else {
                        throw Invalid(message: "unknown character class '[:\(name):]'")
                    }
                    set.classes.append(named)
                    index = end + 2
                    continue
                }
                index += 1
                var low = scalar
                if low == "\\", let escaped = peek, "dws".unicodeScalars.contains(escaped) || "]\\^-".unicodeScalars.contains(escaped) {
                    // Outside POSIX, but what users write: \d, \w, \s and escaped specials.
                    index += 1
                    switch escaped {
                    case "d": set.classes.append(.digit); continue
                    case "w": set.classes.append(.word); continue
                    case "s": set.classes.append(.space); continue
                    default: low = escaped
                    }
                }
                if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    let high = scalars[index + 1]
                    guard low.value <= high.value else { throw Invalid(message: "the range \(low)-\(high) is reversed") }
                    set.ranges.append(low.value...high.value)
                    index += 2
                } else {
                    set.ranges.append(low.value...low.value)
                }
            }
        }
    }

    // MARK: - Compiling

    struct Compiler {
        var program: [Instruction] = []
        var sets: [ScalarSet] = []

        mutating func append(_ instruction: Instruction) throws(Invalid) {
            guard program.count < BoundedRegex.maxProgram else {
                throw Invalid(message: "the pattern is too large once its repetitions are spelled out (over \(BoundedRegex.maxProgram) states)")
            }
            program.append(instruction)
        }

        mutating func emit(_ node: Node) throws(Invalid) {
            switch node {
            case .empty: break
            case .scalar(let scalar): try append(.scalar(scalar))
            case .any: try append(.any)
            case .set(let set):
                sets.append(set)
                try append(.set(sets.count - 1))
            case .lineStart: try append(.lineStart)
            case .lineEnd: try append(.lineEnd)
            case .sequence(let items):
                for item in items { try emit(item) }
            case .alternation(let branches):
                var jumps: [Int] = []
                for (offset, branch) in branches.enumerated() {
                    if offset < branches.count - 1 {
                        let split = program.count
                        try append(.split(split + 1, 0))
                        try emit(branch)
                        jumps.append(program.count)
                        try append(.jump(0))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(branch)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repeated(let inner, let low, let high):
                for _ in 0..<low { try emit(inner) }
                if let high {
                    // Each optional copy may be skipped to the end.
                    var splits: [Int] = []
                    for _ in low..<high {
                        splits.append(program.count)
                        try append(.split(program.count + 1, 0))
                        try emit(inner)
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let loop = program.count
                    try append(.split(loop + 1, 0))
                    try emit(inner)
                    try append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                }
            }
        }
    }
}
