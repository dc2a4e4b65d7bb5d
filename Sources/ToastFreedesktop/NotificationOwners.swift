// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// What the bridge knows of each live notification from the bus that the
/// toast itself does not hold: its owner (`NotificationServer.Owner`: who
/// may replace and close it) and the D-Bus action keys its action ids
/// stand for. A durable toastd restores the toasts after a restart; this
/// lets the bridge carry on with them too, so that a volume script's
/// `notify-send -r ID` still replaces its notification, its sender can
/// still close it, and an action still answers with the sender's own key.
///
/// Written a quarter of a second after the entries change
/// (`NotificationServer.rememberDelay`) and when the bridge stops (a
/// restart is a stop and a start), read when it starts. A crash loses
/// the changes of its last quarter second at most; the notifications it
/// forgets are then someone else's, as they were before this file existed
/// (a `replaces_id` makes a new one). Ids are never handed out twice, so
/// an entry whose toast has ended meanwhile only waits to be dropped.
///
/// The file is one JSON object a line. It comes from disk, which another
/// process or a damaged disk may have written: it is read within
/// `maxBytes`, each line on its own, and a line that is not an entry is
/// left out with a problem that says which.
struct NotificationOwners: Equatable, Sendable {
    var owners: [ToastID: NotificationServer.Owner] = [:]
    var actionKeys: [ToastID: [String: String]] = [:]

    /// The most of a file that is read: far more than the entries of the
    /// most live toasts toastd keeps.
    static let maxBytes = 16 << 20
    /// The most keys an entry may map: a notification's actions are bounded
    /// by the toast's (`ToastLimits.actions`), with room to spare.
    static let maxKeys = 64

    var isEmpty: Bool { owners.isEmpty && actionKeys.isEmpty }

    /// One line per notification, in the order of their ids.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for id in Set(owners.keys).union(actionKeys.keys).sorted() {
            var entry: JSONObject = ["id": .int(Int64(id))]
            if let owner = owners[id] {
                entry["app"] = .string(owner.app)
                entry["connection"] = .string(owner.connection)
            }
            if let keys = actionKeys[id], !keys.isEmpty {
                entry["keys"] = .object(JSONObject(keys.map { (key: $0.key, value: JSONValue.string($0.value)) }))
            }
            JSONValue.object(entry).write(into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The entries `bytes` holds, and what was wrong with the lines left out.
    static func decode(_ bytes: some Collection<UInt8>) -> (NotificationOwners, problems: [String]) {
        var read = NotificationOwners()
        var problems: [String] = []
        guard bytes.count <= maxBytes else {
            return (read, ["the file holds \(bytes.count) bytes, more than the \(maxBytes) read; it is left unread"])
        }
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            do throws(Damage) {
                let (id, owner, keys) = try entry(line)
                if let owner { read.owners[id] = owner }
                if !keys.isEmpty { read.actionKeys[id] = keys }
            } catch {
                problems.append("line \(index + 1): \(error.reason)")
            }
        }
        return (read, problems)
    }

    struct Damage: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func entry(_ line: some Collection<UInt8>) throws(Damage) -> (ToastID, NotificationServer.Owner?, [String: String]) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw Damage("not JSON (\(error))")
        }
        guard case .object(let object) = value else { throw Damage("not an object") }
        guard let number = object["id"]?.intValue, number > 0, number <= Int64(UInt32.max) else {
            throw Damage("no id that a D-Bus notification can have")
        }
        var owner: NotificationServer.Owner?
        switch (object["app"], object["connection"]) {
        case (nil, nil): break
        case (.string(let app)?, .string(let connection)?): owner = NotificationServer.Owner(app: app, connection: connection)
        default: throw Damage("an owner needs an app and a connection, both strings")
        }
        var keys: [String: String] = [:]
        if let mapped = object["keys"] {
            guard case .object(let pairs) = mapped, pairs.count <= maxKeys else {
                throw Damage("keys must be an object of at most \(maxKeys) strings")
            }
            for (id, key) in pairs {
                guard case .string(let key) = key else { throw Damage("the key of action \(id.debugDescription) is not a string") }
                keys[id] = key
            }
        }
        return (ToastID(number), owner, keys)
    }
}
