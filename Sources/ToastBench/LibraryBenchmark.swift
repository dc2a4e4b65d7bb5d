// SPDX-License-Identifier: Apache-2.0
import CRE2
import DequeModule
import ToastCore
import ToastRegex
import ToastTail

#if canImport(Glibc)
import Glibc
#endif

/// Well-kept libraries against what toastd wrote by hand, in the same run
/// (issue #39): RE2 against `BoundedRegex`, utf8proc against the Unicode 15
/// width table it replaced, swift-collections' `Heap` and `Deque` against
/// the binary heap they replaced and the array queue that stays. The
/// pieces that are not in the product stay here, to measure again.
public enum LibraryBenchmark {
    // MARK: - RE2

    /// A compiled RE2 expression (POSIX ERE as glibc reads it, `\d \w \s`).
    public final class RE2Pattern {
        private let handle: OpaquePointer

        public init(_ pattern: String, maxMemory: Int = 8 << 20) throws {
            var error = [CChar](repeating: 0, count: 256)
            let made = pattern.utf8CString.withUnsafeBufferPointer { bytes in
                toastd_re2_new(bytes.baseAddress, bytes.count - 1, maxMemory, &error, error.count)
            }
            guard let made else { throw BenchError("RE2 refused \(pattern): \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))") }
            handle = made
        }

        deinit { toastd_re2_free(handle) }

        public func matches(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { toastd_re2_search(handle, $0.baseAddress, $0.count) == 1 }
        }
    }

    public struct RegexRow: Sendable {
        public var pattern: String
        public var textBytes: Int
        /// Microseconds per search: BoundedRegex as the rules run it, RE2.
        public var bounded: Double
        public var re2: Double
    }

    /// The regex scenario's patterns, and a typical rule's on a typical
    /// message (where a call's fixed cost shows), against texts they do not match.
    public static func regexTimes(rounds: Int) throws -> [RegexRow] {
        var rows: [RegexRow] = []
        let cases: [(String, String)] =
            [("finished in [0-9]+ s$", "Build finished in twelve seconds, all green")]
            + ["finished in [0-9]+ s$", "(error|fail(ed|ure))", "^(a+)+$", "(a|aa)*b", "((a|b)*c)*d"].flatMap { pattern in
                [256, 4_096].map { (pattern, String(repeating: "a", count: $0 - 1) + "!") }
            }
        for (pattern, text) in cases {
            let bounded = try BoundedRegex(pattern)
            let re2 = try RE2Pattern(pattern)
            var hits = 0
            let repeats = text.utf8.count < 100 ? 1_000 : 1
            let ours = Samples(RulesBenchmark.time(rounds: rounds) { for _ in 0..<repeats where bounded.matches(text) { hits += 1 } })
            let theirs = Samples(RulesBenchmark.time(rounds: rounds) { for _ in 0..<repeats where re2.matches(text) { hits += 1 } })
            precondition(hits == 0, "a text meant not to match did")
            rows.append(
                RegexRow(
                    pattern: pattern, textBytes: text.utf8.count, bounded: ours.median * 1_000 / Double(repeats),
                    re2: theirs.median * 1_000 / Double(repeats)
                )
            )
        }
        return rows
    }

    public struct Agreement: Sendable {
        public var compared = 0
        /// Answers that differ from glibc's `regexec`.
        public var boundedDiffers = 0
        public var re2Differs = 0
        /// Patterns glibc takes and the engine refuses.
        public var re2Refused = 0
        public var example: String?
    }

    /// The differential test's random patterns and texts (the same
    /// generator as ToastRegexTests), each engine against glibc.
    public static func regexAgreement(patterns: Int) -> Agreement {
        var generator = RandomPatterns(state: 42)
        var agreement = Agreement()
        for _ in 0..<patterns {
            let pattern = generator.anchoredPattern()
            guard let bounded = try? BoundedRegex(pattern) else { continue }
            guard let re2 = try? RE2Pattern(pattern) else {
                agreement.re2Refused += 1
                continue
            }
            var compiled = regex_t()
            guard regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0 else { continue }
            defer { regfree(&compiled) }
            for _ in 0..<8 {
                let text = generator.text()
                let expected = regexec(&compiled, text, 0, nil, 0) == 0
                agreement.compared += 1
                if bounded.matches(text) != expected { agreement.boundedDiffers += 1 }
                if re2.matches(text) != expected {
                    agreement.re2Differs += 1
                    if agreement.example == nil { agreement.example = "/\(pattern)/ on \"\(text)\": glibc \(expected)" }
                }
            }
        }
        return agreement
    }

    // MARK: - Widths

    public struct WidthResult: Sendable {
        /// Nanoseconds per character: utf8proc, the hand table.
        public var utf8proc: Double
        public var table: Double
        /// Scalars (of every assigned one) on which they differ, and a few of them.
        public var differing: Int
        public var examples: [String]
        /// Scalars on which each differs from glibc's `wcwidth` in C.UTF-8,
        /// which terminals such as tmux and VTE follow (-1 when the locale is missing).
        public var utf8procVersusGlibc: Int
        public var tableVersusGlibc: Int
    }

    public static func widths(rounds: Int) -> WidthResult {
        let corpus = String(
            repeating: "Build finished ✅ ビルド完了 构建完成 🚀 café naïve e\u{301} 한국어 — ok ", count: 64
        )
        let characters = Array(corpus)
        var sum = 0
        let ours = Samples(RulesBenchmark.time(rounds: rounds) { for character in characters { sum &+= DisplayWidth.of(character) } })
        let table = Samples(RulesBenchmark.time(rounds: rounds) { for character in characters { sum &+= HandWidthTable.of(character) } })
        var differing = 0
        var examples: [String] = []
        let glibc = setlocale(LC_CTYPE, "C.UTF-8") != nil
        var (newVersusGlibc, oldVersusGlibc) = (0, 0)
        for value in UInt32(0x20)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .unassigned else { continue }
            let character = Character(scalar)
            let (new, old) = (DisplayWidth.of(character), HandWidthTable.of(character))
            if new != old {
                differing += 1
                if examples.count < 4 { examples.append("U+\(String(value, radix: 16, uppercase: true)) \(old)→\(new)") }
            }
            if glibc {
                let reference = max(0, Int(glibcWidth(Int32(bitPattern: value))))
                if new != reference { newVersusGlibc += 1 }
                if old != reference { oldVersusGlibc += 1 }
            }
        }
        let perCharacter = 1e6 / Double(characters.count)
        return WidthResult(
            utf8proc: ours.median * perCharacter, table: table.median * perCharacter, differing: differing, examples: examples,
            utf8procVersusGlibc: glibc ? newVersusGlibc : -1, tableVersusGlibc: glibc ? oldVersusGlibc : -1
        )
    }

    /// toast-tail's width of a character before utf8proc: Unicode 15's East
    /// Asian Wide and Fullwidth ranges, copied by hand (the baseline).
    enum HandWidthTable {
        static func of(_ character: Character) -> Int {
            let scalars = character.unicodeScalars
            guard let first = scalars.first else { return 0 }
            if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }
            if scalars.count > 1 && scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
            if (0x1F1E6...0x1F1FF).contains(first.value) && scalars.count == 2 { return 2 }
            switch first.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format, .control, .lineSeparator, .paragraphSeparator: return 0
            default: break
            }
            if first.value >= 0x1160 && first.value <= 0x11FF { return 0 }
            if first.properties.isEmojiPresentation { return 2 }
            switch first.value {
            case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
                0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
                0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
                0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
                0x20000...0x2FFFD, 0x30000...0x3FFFD:
                return 2
            default:
                return 1
            }
        }
    }
}

// MARK: - Heap and Deque

extension LibraryBenchmark {
    public struct StructureRow: Sendable {
        public var name: String
        /// Nanoseconds per operation: swift-collections, the hand-written one.
        public var collections: Double
        public var handWritten: Double
    }

    /// The scheduler's use of each: deadlines pushed in a rough order and
    /// taken in order, a third gone stale first; ids queued, a third removed
    /// elsewhere, the rest taken in order.
    public static func structures(count: Int, rounds: Int) -> [StructureRow] {
        var generator = RandomPatterns(state: 7)
        let deadlines = (0..<count).map { DeadlineHeap.Entry(deadline: Int64($0 * 10 + generator.next(5_000)), id: ToastID($0 + 1)) }
        let stale = Set(deadlines.indices.filter { $0 % 3 == 0 }.map { ToastID($0 + 1) })
        var taken = 0
        let heap = Samples(RulesBenchmark.time(rounds: rounds) {
            var heap = DeadlineHeap()
            for entry in deadlines { heap.push(entry) }
            while heap.peek(isValid: { !stale.contains($0.id) }) != nil {
                _ = heap.popMin()
                taken += 1
            }
        })
        let handHeap = Samples(RulesBenchmark.time(rounds: rounds) {
            var heap = ArrayDeadlineHeap()
            for entry in deadlines { heap.push(entry) }
            while heap.peek(isValid: { !stale.contains($0.id) }) != nil {
                _ = heap.popMin()
                taken += 1
            }
        })
        let ids = (1...count).map { ToastID($0) }
        let arrayQueue = Samples(RulesBenchmark.time(rounds: rounds) {
            var queue = WaitQueue()
            for id in ids { queue.append(id) }
            for _ in stale { queue.noteRemoved { !stale.contains($0) } }
            while queue.popFirst(isLive: { !stale.contains($0) }) != nil { taken += 1 }
        })
        let dequeQueue = Samples(RulesBenchmark.time(rounds: rounds) {
            var queue = DequeWaitQueue()
            for id in ids { queue.append(id) }
            for _ in stale { queue.noteRemoved { !stale.contains($0) } }
            while queue.popFirst(isLive: { !stale.contains($0) }) != nil { taken += 1 }
        })
        let perOperation = 1e6 / Double(count)
        return [
            StructureRow(name: "deadlines: Heap / binary heap on an array", collections: heap.median * perOperation, handWritten: handHeap.median * perOperation),
            StructureRow(name: "wait queue: Deque / array with a head index", collections: dequeQueue.median * perOperation, handWritten: arrayQueue.median * perOperation),
        ]
    }

    /// The scheduler's deadline heap before swift-collections: a binary
    /// min-heap on an array (the baseline).
    struct ArrayDeadlineHeap {
        private var entries: [DeadlineHeap.Entry] = []

        mutating func push(_ entry: DeadlineHeap.Entry) {
            entries.append(entry)
            var child = entries.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard entries[child] < entries[parent] else { return }
                entries.swapAt(child, parent)
                child = parent
            }
        }

        mutating func peek(isValid: (DeadlineHeap.Entry) -> Bool) -> DeadlineHeap.Entry? {
            while let first = entries.first {
                if isValid(first) { return first }
                _ = popMin()
            }
            return nil
        }

        mutating func popMin() -> DeadlineHeap.Entry? {
            guard !entries.isEmpty else { return nil }
            entries.swapAt(0, entries.count - 1)
            let minimum = entries.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < entries.count else { break }
                var smallest = left
                if left + 1 < entries.count && entries[left + 1] < entries[left] { smallest = left + 1 }
                guard entries[smallest] < entries[parent] else { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
            return minimum
        }
    }

    /// The wait queue on swift-collections' `Deque` (the candidate, which
    /// measured slower than the array with a head index that stays).
    struct DequeWaitQueue {
        private var entries = Deque<ToastID>()
        private(set) var count = 0

        mutating func append(_ id: ToastID) {
            entries.append(id)
            count += 1
        }

        mutating func noteRemoved(isLive: (ToastID) -> Bool) {
            count -= 1
            let stale = entries.count - count
            if stale > 64 && stale > count { entries = Deque(entries.filter(isLive)) }
        }

        mutating func popFirst(isLive: (ToastID) -> Bool) -> ToastID? {
            while let id = entries.popFirst() {
                if isLive(id) {
                    count -= 1
                    return id
                }
            }
            return nil
        }
    }
}

/// glibc's wcwidth(3), which Swift's Glibc module does not export (it wants _XOPEN_SOURCE).
@_silgen_name("wcwidth")
private func glibcWidth(_ character: Int32) -> Int32
