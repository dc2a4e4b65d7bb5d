import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List live toasts.")
        @OptionGroup var client: ClientOptions
        @OptionGroup var only: FilterOptions
        func run() throws {
            let result = try client.listAll(only.filter)
            client.output(result) {
                guard let snapshot = try? WireDecoder.decodeSnapshot(result) else { return "" }
                return snapshot.toasts.map { record in
                    let toast = record.toast
                    let fields = ["\(record.id)", record.state.rawValue, toast.role.rawValue, toast.alignment.rawValue, toast.scene]
                    let repeats = record.repeatCount > 1 ? " ×\(record.repeatCount)" : ""
                    let actions =
                        toast.actions.isEmpty
                        ? "" : "\t[" + toast.actions.map { Terminal.sanitize("\($0.id): \($0.label)") }.joined(separator: ", ") + "]"
                    return fields.joined(separator: "\t") + "\t" + Terminal.sanitize(toast.message) + repeats + actions
                }.joined(separator: "\n") + (snapshot.paused ? "\n(paused)" : "")
            }
        }
    }
}
