import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Invoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "invoke",
            abstract: "Invoke one of a toast's actions.",
            discussion: """
                toastctl invoke ID [--action ACTION], or toastctl invoke --latest [ACTION]: the toast shown \
                last that has ACTION (or any action). Without an action, the toast's `default` action, its \
                body's click (freedesktop's "default"), or for --latest its first action when it has no default.
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "The toast's id; with --latest, the action.") var idOrAction: String?
        @OptionGroup var target: LatestTargetOptions
        @Option(help: "The action's id.") var action: String?

        var id: UInt64? { target.latest ? nil : idOrAction.flatMap(UInt64.init) }
        var actionID: String? { action ?? (target.latest ? idOrAction : nil) }

        func validate() throws {
            if !target.latest, let idOrAction, UInt64(idOrAction) == nil {
                throw ValidationError("'\(idOrAction)' is not a toast id")
            }
            if target.latest && action != nil && idOrAction != nil {
                throw ValidationError("give the action once: as --action or after --latest")
            }
            try target.validate(id: id)
        }

        /// The action a click on a toast's body invokes (freedesktop's key).
        static let bodyAction = "default"

        func run() throws {
            let (toast, latest) = try target.target(id: id, client: client, having: actionID ?? "")
            var chosen = actionID
            if chosen == nil, let latest {
                // The click on the body: `default` when it has one, else its first action.
                let actions = latest.toast.actions
                chosen = actions.first { $0.id == Self.bodyAction }?.id ?? actions.first?.id
            } else if chosen == nil {
                // A toast named by id: its body's click (toastd says if it has none).
                chosen = Self.bodyAction
            }
            guard let chosen else {
                printError("toastctl: the toast has no action to invoke")
                throw ExitCode(1)
            }
            try client.performPrintingID(.command(.invoke(toast, actionID: chosen)))
        }
    }
}
