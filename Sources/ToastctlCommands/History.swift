import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    /// `toastctl history`: the toasts that ended, newest first; `history clear` forgets them.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "The toasts that ended, newest first (kept across restarts).",
            subcommands: [Show.self, Clear.self],
            defaultSubcommand: Show.self
        )

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show", abstract: "List the toasts that ended, newest first (the default).")
            @OptionGroup var client: ClientOptions
            @OptionGroup var only: FilterOptions
            @Option(help: "At most this many entries.") var limit: Int?
            @Option(help: "Only toasts from this source.") var source: String?
            @Option(help: "Only toasts that ended at or after this time (Unix milliseconds).") var since: Int64?

            func validate() throws {
                if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
                if let since, since < 0 { throw ValidationError("--since must not be negative.") }
            }

            func run() throws {
                // A reply holds at most `Query.maxLimit` entries: page on with `before`.
                var query = ToastHistory.Query(filter: only.filter, source: source, since: since, limit: limit)
                let connection = try client.connect()
                var page = try client.perform(WireEncoder.request(.history(query)), on: connection)
                var entries: [JSONValue] = []
                while true {
                    if case .array(let items)? = page["entries"] { entries += items }
                    guard let next = page["next"]?.intValue, limit.map({ entries.count < $0 }) ?? true else { break }
                    query.before = UInt64(max(0, next))
                    query.limit = limit.map { $0 - entries.count }
                    page = try client.perform(WireEncoder.request(.history(query)), on: connection)
                }
                let result: JSONValue = ["entries": .array(entries)]
                client.output(result) {
                    let entries = (try? WireDecoder.decodeHistoryEntries(result)) ?? []
                    return entries.map { entry in
                        let fields = ["\(entry.record.id)", entry.record.toast.role.rawValue, entry.shown ? "dismissed" : "cancelled", Terminal.sanitize(entry.reason)]
                        return fields.joined(separator: "\t") + "\t" + Terminal.sanitize(entry.record.toast.message)
                    }.joined(separator: "\n")
                }
            }
        }

        struct Clear: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "clear", abstract: "Forget the history.")
            @OptionGroup var client: ClientOptions
            func run() throws {
                let result = try client.perform(WireEncoder.request(.clearHistory))
                client.output(result) { "cleared \(result["cleared"]?.serializedScalar ?? "0")" }
            }
        }
    }
}
