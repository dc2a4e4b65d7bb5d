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
            let result = try client.perform(WireEncoder.request(.list(only.filter)))
            client.output(result) {
                guard case .array(let toasts)? = result["toasts"] else { return "" }
                return toasts.map { toast in
                    let fields = ["id", "state", "role", "alignment", "scene"].map { toast[$0]?.serializedScalar ?? "-" }
                    let repeats = (toast["repeat"]?.intValue ?? 1) > 1 ? " ×\(toast["repeat"]!.intValue!)" : ""
                    var actions = ""
                    if case .array(let list)? = toast["actions"], !list.isEmpty {
                        actions = "\t[" + list.map { action in
                            Terminal.sanitize("\(action["id"]?.stringValue ?? "?"): \(action["label"]?.stringValue ?? "")")
                        }.joined(separator: ", ") + "]"
                    }
                    return fields.joined(separator: "\t") + "\t" + Terminal.sanitize(toast["message"]?.stringValue ?? "") + repeats + actions
                }.joined(separator: "\n") + (result["paused"] == .bool(true) ? "\n(paused)" : "")
            }
        }
    }
}
