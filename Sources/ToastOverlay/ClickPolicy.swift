// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// What a click on a card asks toastd to do, decided from the toast alone:
/// a button invokes its action; the close button dismisses; the body
/// invokes `default` when the toast has it, and otherwise dismisses. A toast
/// that cannot be dismissed says so on its card instead of vanishing.
public enum ClickPolicy {
    public enum Target: Equatable, Sendable {
        case body
        case close
        case button(Int)
    }

    public enum Outcome: Equatable, Sendable {
        case invoke(ToastID, action: String)
        case dismiss(ToastID)
        /// A note on the card, for a while; nothing sent.
        case notice(ToastID, String)
        case nothing
    }

    public static let notDismissible = "This toast can only be closed by the app that sent it"

    public static func outcome(of target: Target, on record: ToastRecord) -> Outcome {
        let toast = record.toast
        switch target {
        case .button(let index):
            let buttons = toast.actions.filter { $0.id != "default" }
            guard buttons.indices.contains(index) else { return .nothing }
            return .invoke(record.id, action: buttons[index].id)
        case .close:
            return toast.dismissible ? .dismiss(record.id) : .notice(record.id, notDismissible)
        case .body:
            if toast.actions.contains(where: { $0.id == "default" }) { return .invoke(record.id, action: "default") }
            return toast.dismissible ? .dismiss(record.id) : .notice(record.id, notDismissible)
        }
    }

    /// The request for an outcome that sends one.
    public static func request(_ outcome: Outcome) -> Request? {
        switch outcome {
        case .invoke(let id, let action): .command(.invoke(.id(id), actionID: action))
        case .dismiss(let id): .command(.dismiss(.id(id)))
        case .notice, .nothing: nil
        }
    }
}
