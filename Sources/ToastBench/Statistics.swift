// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A set of measurements and the figures the report gives of them.
public struct Samples: Sendable {
    public private(set) var values: [Double]

    public init(_ values: [Double] = []) { self.values = values }

    public mutating func append(_ value: Double) { values.append(value) }
    public mutating func append(contentsOf other: Samples) { values += other.values }

    public var count: Int { values.count }
    public var median: Double { percentile(50) }

    /// The nearest-rank percentile (p in 0...100); NaN when empty.
    public func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Measurements taken in rounds, every subject once a round in turn, so
/// that a slow moment of the machine falls on all of them. A ratio between
/// two subjects is the median of each round's own ratio: the machine's
/// rate moved by half between runs minutes apart here, and a ratio of two
/// medians taken at different moments would carry that.
public struct Rounds: Sendable {
    public private(set) var subjects: [Samples]
    private var rounds: [[Double]] = []

    public init(subjects: Int) { self.subjects = Array(repeating: Samples(), count: subjects) }

    /// One round: a value for every subject, in the subjects' order.
    public mutating func record(_ round: [Double]) {
        precondition(round.count == subjects.count, "a round measures every subject")
        for (index, value) in round.enumerated() { subjects[index].append(value) }
        rounds.append(round)
    }

    public var count: Int { rounds.count }

    /// The median over the rounds of `subject` / `reference`.
    public func ratio(_ subject: Int, to reference: Int) -> Double {
        Samples(rounds.map { $0[subject] / $0[reference] }).median
    }

    /// The lowest and highest of the rounds' own `subject` / `reference`:
    /// how far one round's verdict can fall from the median's.
    public func ratioRange(_ subject: Int, to reference: Int) -> ClosedRange<Double> {
        let ratios = rounds.map { $0[subject] / $0[reference] }
        precondition(!ratios.contains(where: \.isNaN), "a range of ratios needs rounds that measured both")
        return (ratios.min() ?? .infinity)...(ratios.max() ?? .infinity)
    }
}

/// Formatting for the report's tables.
public enum Figure {
    public static func fixed(_ value: Double, _ decimals: Int = 2) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : "n/a"
    }

    /// "3.40×"
    public static func ratio(_ value: Double) -> String { fixed(value) + "×" }

    /// Thousands with a thin grouping: 123,456.
    public static func count(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        let digits = String(Int(value.rounded()))
        var out = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 && character != "-" { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }
}

/// A Markdown table, printed as the benchmark goes.
public struct Table {
    public var header: [String]
    public var rows: [[String]] = []

    public init(_ header: String...) { self.header = header }

    public mutating func add(_ cells: String...) { rows.append(cells) }

    public var markdown: String {
        var lines = ["| " + header.joined(separator: " | ") + " |"]
        lines.append("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
        for row in rows { lines.append("| " + row.joined(separator: " | ") + " |") }
        return lines.joined(separator: "\n")
    }
}
