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
                toastctl invoke ID --action ACTION, or toastctl invoke --latest [ACTION]: the toast shown                 last that has ACTION (or any action; then its first one, as a click would).
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
            if !target.latest && action == nil { throw ValidationError("missing --action") }
        }

        func run() throws {
            let (toast, latest) = try target.target(id: id, client: client, having: actionID ?? "")
            var chosen = actionID
            if chosen == nil {
                // The first action of the toast --latest picked, as a click would invoke.
                chosen = latest?.toast.actions.first?.id
            }
            guard let chosen else {
                printError("toastctl: the toast has no action to invoke")
                throw ExitCode(1)
            }
            try client.performPrintingID(.command(.invoke(toast, actionID: chosen)))
        }
    }
}
