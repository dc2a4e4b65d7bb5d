// SPDX-License-Identifier: Apache-2.0
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
            abstract: "Invoke one of a toast's actions (by default its `default`, the click on its body).",
            discussion: """
                toastctl invoke ID [ACTION], toastctl invoke --latest [ACTION] (the toast shown last that \
                has ACTION, or any action), or --action ACTION. Without an action it invokes the toast's \
                `default` action, as makoctl and dunstctl do; a toast with actions but no `default` is a \
                usage error that lists them, so a destructive one is never chosen for you.
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: ArgumentHelp("The toast's id and then the action; with --latest, the action.", valueName: "id-or-action"))
        var words: [String] = []
        @OptionGroup var target: LatestTargetOptions
        @Option(help: "The action's id.") var action: String?

        var id: UInt64? { target.latest || target.reuseID != nil ? nil : words.first.flatMap(UInt64.init) }
        /// The action named on the command line, if any.
        var actionID: String? {
            if let action { return action }
            let rest = target.latest || target.reuseID != nil ? words : Array(words.dropFirst())
            return rest.first
        }

        func validate() throws {
            let named = target.latest || target.reuseID != nil
            if !named, let first = words.first, UInt64(first) == nil { throw ValidationError("'\(first)' is not a toast id") }
            if words.count > (named ? 1 : 2) { throw ValidationError("give the toast and one action (got \(words.count) words)") }
            if action != nil && words.count > (named ? 0 : 1) { throw ValidationError("give the action once: as a word or as --action") }
            try target.validate(id: id)
        }

        /// The action a click on a toast's body invokes (freedesktop's key).
        static let bodyAction = "default"

        func run() throws {
            let (toast, latest) = try target.target(id: id, client: client, having: actionID ?? "")
            var chosen = actionID
            if chosen == nil {
                let record = try latest ?? Self.record(toast, client: client)
                chosen = try Self.implicitAction(of: record)
            }
            try client.performPrintingID(.command(.invoke(toast, actionID: chosen ?? Self.bodyAction)))
        }

        /// The toast named, to read its actions (nil when it is not live: toastd then says so).
        static func record(_ target: ToastTarget, client: ClientOptions) throws -> ToastRecord? {
            let result = try client.listAll(EventFilter())
            guard let snapshot = try? WireDecoder.decodeSnapshot(result) else { return nil }
            return snapshot.toasts.first { record in
                switch target {
                case .id(let id): record.id == id
                case .reuseID(let reuseID, let scene): record.toast.reuseID == reuseID && record.toast.scene == scene
                }
            }
        }

        /// `default`, when the toast has it; several actions without it are the caller's to choose.
        static func implicitAction(of record: ToastRecord?) throws -> String? {
            guard let record else { return nil }
            let actions = record.toast.actions
            if actions.contains(where: { $0.id == bodyAction }) { return bodyAction }
            if actions.isEmpty {
                printError("toastctl: toast \(record.id) has no action to invoke")
                throw ExitCode(1)
            }
            let list = actions.map { "\($0.id) (\($0.label))" }.joined(separator: ", ")
            throw ValidationError("toast \(record.id) has no default action; name one of: \(list), e.g. toastctl invoke \(record.id) \(actions[0].id)")
        }
    }
}
