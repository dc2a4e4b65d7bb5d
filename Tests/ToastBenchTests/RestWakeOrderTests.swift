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
    static let kinds: [Kind] = Kind.allCases.flatMap { kind in Array(repeating: kind, count: kind.count) }

    @Test func everyDaemonIsWokenOnceAndTheGroupsTakeTurns() {
        let order = BenchmarkSuite.wakeOrder(Self.kinds)
        #expect(order.sorted() == Array(Self.kinds.indices))
        // The first round takes one of each group, in order; the second goes
        // backwards, without the first wake's one daemon.
        let groups = Kind.allCases.count
        #expect(order.prefix(groups).map { Self.kinds[$0] } == Kind.allCases)
        #expect(order.dropFirst(groups).prefix(groups - 1).map { Self.kinds[$0] } == Kind.allCases.dropFirst().reversed())
    }

    /// The machine's own wake after the rest falls on the C echo woken
    /// first, not on a session's first add (which it once did, every run).
    @Test func theFirstWakeIsTheFloorsAndNoGroupsOnly() {
        let order = BenchmarkSuite.wakeOrder(Self.kinds)
        #expect(Self.kinds[order[0]] == .firstWake)
        #expect(Self.kinds.filter { $0 == .firstWake }.count == 1)
        #expect(!Kind.allCases.dropFirst().contains(.firstWake))
    }

    @Test func theGroupsComparedAreWokenAtTheSamePlacesOnAverage() {
        let order = BenchmarkSuite.wakeOrder(Self.kinds)
        func meanPlace(_ kind: Kind) -> Double {
            let places = order.indices.filter { Self.kinds[order[$0]] == kind }
            return Double(places.reduce(0, +)) / Double(places.count)
        }
        // Woken group by group, the code pages kept came three places after shipped on average.
        #expect(abs(meanPlace(.shipped) - meanPlace(.released)) <= 1)
        #expect(abs(meanPlace(.shipped) - meanPlace(.smallPages)) <= 1)
        #expect(abs(meanPlace(.shipped) - meanPlace(.sessionFirst)) <= 1)
    }
}
