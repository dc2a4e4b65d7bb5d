// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastBench

/// The order the rest scenario wakes its daemons in: the first requests
/// after a long rest cost more whatever the server, so two groups compared
/// must be woken in turns, at about the same places on average.
@Suite("The rest scenario's wake order")
struct RestWakeOrderTests {
    typealias Kind = BenchmarkSuite.Resting.Kind

    /// The groups as `beginRest` starts them.
    static let kinds: [Kind] = Kind.allCases.flatMap { kind in
        Array(repeating: kind, count: kind == .shipped || kind == .kept ? 3 : 2)
    }

    @Test func everyDaemonIsWokenOnceAndTheGroupsTakeTurns() {
        let order = BenchmarkSuite.wakeOrder(Self.kinds)
        #expect(order.sorted() == Array(Self.kinds.indices))
        // The first round takes one of each group, in order; the second goes backwards.
        #expect(order.prefix(5).map { Self.kinds[$0] } == Kind.allCases)
        #expect(order.dropFirst(5).prefix(5).map { Self.kinds[$0] } == Kind.allCases.reversed())
    }

    @Test func shippedAndKeptAreWokenAtTheSamePlacesOnAverage() {
        let order = BenchmarkSuite.wakeOrder(Self.kinds)
        func meanPlace(_ kind: Kind) -> Double {
            let places = order.indices.filter { Self.kinds[order[$0]] == kind }
            return Double(places.reduce(0, +)) / Double(places.count)
        }
        // Woken group by group, kept came three places after shipped on average.
        #expect(abs(meanPlace(.shipped) - meanPlace(.kept)) <= 1)
    }
}
