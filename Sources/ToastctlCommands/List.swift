// SPDX-License-Identifier: Apache-2.0
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
            commandName: "list", abstract: "List live toasts.",
            discussion: """
                A table: id, age (since it was shown, or added while it waits), state, role, source, \
                title and message (×N when repeated), and its actions. On a terminal it has a header and \
                is cut to the terminal's width; into a pipe its columns are separated by tabs. --json is \
                the protocol's snapshot.
                """)
        @OptionGroup var client: ClientOptions
        @OptionGroup var only: FilterOptions
        func run() throws {
            let result = try client.listAll(only.filter)
            client.output(result) {
                guard let snapshot = try? WireDecoder.decodeSnapshot(result) else { return "" }
                let rows = snapshot.toasts.map { record in
                    let toast = record.toast
                    let actions =
                        toast.actions.isEmpty ? "" : "[" + toast.actions.map { Terminal.sanitize("\($0.id): \($0.label)") }.joined(separator: ", ") + "]"
                    return [
                        "\(record.id)", Listing.age(since: record.presentedAt ?? record.createdAt), record.state.rawValue,
                        toast.role.rawValue, Listing.source(toast), Listing.text(toast, repeatCount: record.repeatCount), actions,
                    ]
                }
                let width = Listing.terminalWidth
                // On a terminal the actions follow the text in its column, which is cut last.
                let table =
                    width == nil
                    ? Listing(header: [], rows: rows.map { $0.last!.isEmpty ? Array($0.dropLast()) : $0 }).render(width: nil)
                    : Listing(
                        header: ["ID", "AGE", "STATE", "ROLE", "SOURCE", "TEXT"],
                        rows: rows.map { Array($0.prefix(5)) + [$0[6].isEmpty ? $0[5] : $0[5] + "  " + $0[6]] }
                    ).render(width: width)
                return table + (snapshot.paused ? "\n(paused)" : "")
            }
        }
    }
}
