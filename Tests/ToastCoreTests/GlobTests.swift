// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// The rules' globs, compared on bytes, agree with fnmatch(3), which they
/// stand in for.
@Suite("Globs")
struct GlobTests {
    /// A small deterministic generator (the same patterns every run).
    struct Generator {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test func globsAgreeWithFnmatch() {
        var generator = Generator(state: 7)
        let pieces = ["a", "b", "é", "*", "?", "[ab]", "ci", "-"]
        for _ in 0..<5_000 {
            let pattern = (0..<generator.next(5)).map { _ in pieces[generator.next(pieces.count)] }.joined()
            let glob = Glob(pattern)
            for _ in 0..<6 {
                let text = (0..<generator.next(7)).map { _ in ["a", "b", "é", "c", "i", "-"][generator.next(6)] }.joined()
                #expect(glob.matches(text) == (fnmatch(pattern, text, 0) == 0), "'\(pattern)' on '\(text)'")
            }
        }
    }
}
