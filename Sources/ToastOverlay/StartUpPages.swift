// SPDX-License-Identifier: Apache-2.0

/// When toast-overlay lets go of the code pages that only its start ran
/// (`CodePages`, then `CodeFolios`, as toastd does once it is ready).
///
/// Starting runs code no card needs again (the arguments, the style file,
/// the display's first round trips, the Swift runtime's first look-ups), and
/// the first card runs more (fonts loaded, the first layouts). Each page of
/// it stays mapped, and counted in the overlay's PSS, until memory runs
/// short: an idle overlay held 6.9 MiB of its own binary's pages.
///
/// So the overlay lets go the first time its loop goes to sleep with
/// nothing on screen and no timer, and once more the first time the screen
/// is empty again after a card was drawn; then never again. It has no
/// timer of its own: it only ever answers the loop going to sleep.
struct StartUpPages: Equatable {
    enum State: Equatable {
        /// Not let go of yet; whether a card was drawn meanwhile.
        case starting(cardDrawn: Bool)
        /// Let go of once; waiting for the first card.
        case waitingForACard
        /// A card was drawn since: let go of again when the screen is empty.
        case cardDrawn
        /// Both done.
        case done
    }

    private(set) var state = State.starting(cardDrawn: false)

    /// The loop drew cards.
    mutating func drew() {
        switch state {
        case .starting: state = .starting(cardDrawn: true)
        case .waitingForACard: state = .cardDrawn
        case .cardDrawn, .done: break
        }
    }

    /// The loop is about to sleep, with nothing on screen and no timer due
    /// (`idle`) or not: whether to let go of the code pages now.
    mutating func sleeping(idle: Bool) -> Bool {
        guard idle else { return false }
        switch state {
        case .starting(let cardDrawn):
            // A card already drawn and gone: its pages go with start-up's.
            state = cardDrawn ? .done : .waitingForACard
            return true
        case .cardDrawn:
            state = .done
            return true
        case .waitingForACard, .done:
            return false
        }
    }
}
