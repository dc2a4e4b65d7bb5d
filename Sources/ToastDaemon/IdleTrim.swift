// SPDX-License-Identifier: Apache-2.0
/// When an idle toastd lets go of its code pages again (`CodePages`).
///
/// Checked on a fixed tick with the hub's step count (every request and
/// every timer that fires is a step): after `quietTicks` ticks in a row
/// with no step, once per quiet spell. The first spell needs no trim:
/// start-up ends with one.
struct IdleTrim: Sendable {
    let quietTicks: Int
    private var lastSteps: Int
    private var quiet = 0
    private var trimmed = true

    init(quietTicks: Int, steps: Int) {
        precondition(quietTicks > 0)
        self.quietTicks = quietTicks
        self.lastSteps = steps
    }

    /// One tick with the step count now; true when it is time to trim.
    mutating func tick(steps: Int) -> Bool {
        if steps != lastSteps {
            lastSteps = steps
            quiet = 0
            trimmed = false
            return false
        }
        quiet += 1
        guard !trimmed, quiet >= quietTicks else { return false }
        trimmed = true
        return true
    }
}
