// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// What the daemon knows about itself besides the scheduler's counters, as
/// one value: the daemon's members of the `status` result (PROTOCOL.md,
/// section 5.7) and systemd's STATUS= line are both made from it.
struct DaemonStatus: Sendable, Equatable {
    var persistence: StatePersistence.Mode
    var historyCount: Int
    var inhibitors: Int
    /// Each inhibitor's reason (`toastctl inhibit --reason`), sorted.
    var inhibitorReasons: [String] = []
    var knownModes: [String]
    var rules: Int
    /// The named rules (`toastctl rule`), each with its switch.
    var ruleNames: [String] = []
    /// The configuration file read, if any.
    var configPath: String?
    /// Why the last load of the file was refused, if it was.
    var configError: String?
    /// What companions (the freedesktop bridge) report.
    var board: [String: String]

    /// The `status` result: the scheduler's members and these.
    func result(scheduler: JSONValue) -> JSONValue {
        guard case .object(var members) = scheduler else { return scheduler }
        members["persistence"] = .string(persistence.name)
        if case .degraded(let reason) = persistence { members["persistenceReason"] = .string(reason) }
        members["history"] = .int(Int64(historyCount))
        members["inhibitors"] = .int(Int64(inhibitors))
        members["inhibitorReasons"] = .array(inhibitorReasons.map { .string($0) })
        members["knownModes"] = .array(knownModes.map { .string($0) })
        members["rules"] = .int(Int64(rules))
        var off = Set<String>()
        if case .array(let modes)? = members["modes"] { off = Set(modes.compactMap(\.stringValue)) }
        members["namedRules"] = .array(ruleNames.map { name in
            ["name": .string(name), "enabled": .bool(!off.contains(ToastRule.offPrefix + name))]
        })
        members["config"] = configPath.map(JSONValue.string) ?? .null
        if let configError { members["configError"] = .string(configError) }
        for (key, value) in board { members[key] = .string(value) }
        return .object(members)
    }

    /// A one-line summary for logs and systemd's STATUS=.
    func line(shown: Int, queued: Int, subscribers: Int, pauseLevel: Int?) -> String {
        var line = "\(shown) shown, \(queued) queued, \(subscribers) subscribers"
        if let pauseLevel { line += ", paused at \(pauseLevel)" }
        if case .degraded(let reason) = persistence { line += "; persistence degraded: \(reason)" }
        if let configError {
            line += "; CONFIG REFUSED, defaults or the last good file in force: "
            line += configError.split(separator: "\n").first.map(String.init) ?? ""
        }
        for key in board.keys.sorted() { line += "; \(board[key]!)" }
        return line
    }
}
