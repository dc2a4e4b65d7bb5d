// SPDX-License-Identifier: Apache-2.0
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
            subcommands: [Show.self, Remove.self, Clear.self],
            defaultSubcommand: Show.self
        )

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show", abstract: "List the toasts that ended, newest first (the default).")
            @OptionGroup var client: ClientOptions
            @OptionGroup var only: FilterOptions
            @Option(help: "At most this many entries.") var limit: Int?
            @Option(help: "Only toasts from this source: a name, or a glob as rules take (Fire*).") var source: String?
            @Option(help: "Only toasts that ended since then: 30m, 1h, 2d ago, an ISO time (2026-11-27T09:00, local unless Z or an offset), or Unix milliseconds.")
            var since: String?

            func validate() throws {
                if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
                if let since, SinceParser.milliseconds(since) == nil {
                    throw ValidationError("--since: '\(since)' is not 30m, 1h, 2d, an ISO time such as 2026-11-27T09:00, or Unix milliseconds")
                }
            }

            /// Whether `--source` is a glob (then matched here, with fnmatch as the rules do).
            var sourceGlob: String? { source.flatMap { $0.contains(where: { "*?[".contains($0) }) ? $0 : nil } }

            func run() throws {
                // A reply holds at most `Query.maxLimit` entries: page on with `before`.
                let glob = sourceGlob
                var query = ToastHistory.Query(
                    filter: only.filter, source: glob == nil ? source : nil, since: since.flatMap { SinceParser.milliseconds($0) },
                    limit: glob == nil ? limit : nil)
                let connection = try client.connect()
                var page = try client.perform(WireEncoder.request(.history(query)), on: connection)
                var entries: [JSONValue] = []
                while true {
                    if case .array(let items)? = page["entries"] {
                        entries += items.filter { item in
                            guard let glob else { return true }
                            return fnmatch(glob, item["toast"]?["source"]?.stringValue ?? "", 0) == 0
                        }
                    }
                    if let limit, entries.count >= limit {
                        entries = Array(entries.prefix(limit))
                        break
                    }
                    guard let next = page["next"]?.intValue else { break }
                    query.before = UInt64(max(0, next))
                    query.limit = glob == nil ? limit.map { $0 - entries.count } : nil
                    page = try client.perform(WireEncoder.request(.history(query)), on: connection)
                }
                let result: JSONValue = ["entries": .array(entries)]
                client.output(result) {
                    let entries = (try? WireDecoder.decodeHistoryEntries(result)) ?? []
                    let rows = entries.map { entry in
                        [
                            "\(entry.record.id)", Listing.age(since: entry.endedAt), entry.record.toast.role.rawValue, Listing.source(entry.record.toast),
                            Terminal.sanitize(entry.reason), Listing.text(entry.record.toast, repeatCount: entry.record.repeatCount),
                        ]
                    }
                    return Listing(header: ["ID", "ENDED", "ROLE", "SOURCE", "HOW", "TEXT"], rows: rows).render()
                }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "rm", abstract: "Forget one toast's history entry.")
            @OptionGroup var client: ClientOptions
            @Argument(help: "The toast's id, as history lists it.") var id: UInt64
            func run() throws {
                let result = try client.perform(WireEncoder.request(.clearHistory(id)))
                client.output(result) { "forgot \(id)" }
            }
        }

        struct Clear: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "clear", abstract: "Forget the history.")
            @OptionGroup var client: ClientOptions
            func run() throws {
                let result = try client.perform(WireEncoder.request(.clearHistory(nil)))
                client.output(result) { "cleared \(result["cleared"]?.serializedScalar ?? "0")" }
            }
        }
    }
}
