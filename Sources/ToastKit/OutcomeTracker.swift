// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// How a toast's sender learns its outcome from the events on its
/// connection (PROTOCOL.md, section 6.3): an `action` is remembered until
/// the end that follows it, and then is the outcome; a resident toast,
/// which stays after an action, has the action as its outcome at once.
/// ToastSession and BlockingToasts both read events through it.
struct OutcomeTracker {
    private var actions: [ToastID: String] = [:]

    /// The outcome an event settles, if it settles one.
    mutating func note(_ event: ToastEvent) -> (ToastID, ToastOutcome)? {
        guard let record = event.record else { return nil }
        switch event.kind {
        case .action(_, let action):
            if record.toast.resident { return (record.id, .action(action)) }
            actions[record.id] = action
            return nil
        case .dismissed(_, let reason):
            return (record.id, actions.removeValue(forKey: record.id).map(ToastOutcome.action) ?? .dismissed(reason))
        case .cancelled(_, let reason):
            return (record.id, actions.removeValue(forKey: record.id).map(ToastOutcome.action) ?? .cancelled(reason))
        default:
            return nil
        }
    }
}
