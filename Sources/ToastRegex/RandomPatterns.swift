// SPDX-License-Identifier: Apache-2.0
/// Random POSIX extended patterns and texts over a small alphabet, the
/// same every run for a seed: the differential tests against glibc and the
/// libraries benchmark read the same ones.
package struct RandomPatterns {
    package var state: UInt64

    package init(state: UInt64) {
        self.state = state
    }

    package mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }

    package mutating func pattern(depth: Int = 0) -> String {
        var result = ""
        for _ in 0..<(1 + next(3)) {
            var atom: String
            switch next(depth > 2 ? 5 : 8) {
            case 0, 1, 2: atom = ["a", "b", "c"][next(3)]
            case 3: atom = "."
            case 4: atom = ["[ab]", "[^a]", "[a-c]", "[[:alpha:]]", "[^bc!]"][next(5)]
            default: atom = "(" + pattern(depth: depth + 1) + (next(2) == 0 ? "|" + pattern(depth: depth + 1) : "") + ")"
            }
            switch next(8) {
            case 0: atom += "*"
            case 1: atom += "+"
            case 2: atom += "?"
            case 3: atom += ["{2}", "{1,3}", "{0,}", "{2,4}"][next(4)]
            default: break
            }
            result += atom
        }
        return result
    }

    package mutating func anchoredPattern() -> String {
        (next(3) == 0 ? "^" : "") + pattern() + (next(3) == 0 ? "$" : "")
    }

    package mutating func text() -> String {
        String((0..<next(12)).map { _ in ["a", "b", "c", "!"][next(4)] })
    }
}
