// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastOverlay

@Suite("toast-overlay's start-up pages: when they are let go of")
struct StartUpPagesTests {
    /// Runs `events` through a fresh policy: `true`/`false` is the loop going
    /// to sleep idle or busy, `nil` a card drawn. Returns, for each sleep,
    /// whether the pages were let go of, and the state at the end.
    static func run(_ events: [Bool?]) -> (letGo: [Bool], state: StartUpPages.State) {
        var pages = StartUpPages()
        var letGo: [Bool] = []
        for event in events {
            if let idle = event { letGo.append(pages.sleeping(idle: idle)) } else { pages.drew() }
        }
        return (letGo, pages.state)
    }

    @Test("at the first idle sleep, and once more after the first card has gone; never on a busy one")
    func atStartAndAfterTheFirstCard() {
        // Busy, idle (start-up's), idle again (nothing new), a card, busy while
        // it shows, idle (the first card's), then three more cards and sleeps.
        let later: [Bool?] = [nil, false, true, nil, false, true, nil, false, true]
        let (letGo, state) = Self.run([false, true, true, nil, false, true] + later)
        #expect(letGo == [false, true, false, false, true] + [false, false, false, false, false, false])
        #expect(state == .done)
    }

    @Test("a card drawn before the first idle sleep goes with start-up's pages, once")
    func aCardBeforeTheFirstIdleSleep() {
        let (letGo, state) = Self.run([nil, false, true, nil, true])
        #expect(letGo == [false, true, false])
        #expect(state == .done)
    }

    @Test("a screen never idle never lets go")
    func neverIdle() {
        let (letGo, state) = Self.run([nil, false, nil, false, false])
        #expect(letGo == [false, false, false])
        #expect(state == .starting(cardDrawn: true))
    }
}
