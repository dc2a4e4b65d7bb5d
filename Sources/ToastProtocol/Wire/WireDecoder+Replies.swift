// SPDX-License-Identifier: Apache-2.0
/// The client's side of the wire: replies, toasts and events as typed
/// values, read with the same rules the daemon writes them by. ToastKit,
/// toastctl and the store read through here, so one place knows the wire.
extension WireDecoder {
    /// A reply line's outcome: its `result`, or its error as a `ToastError`
    /// (with the protocol's code; an unknown code reads as `invalid_request`).
    public static func reply(_ reply: JSONValue) -> Result<JSONValue, ToastError> {
        if reply["ok"] == .bool(true) { return .success(reply["result"] ?? [:]) }
        let error = reply["error"]
        let code = error?["code"]?.stringValue.flatMap(ToastError.Code.init(rawValue:)) ?? .invalidRequest
        let message = error?["message"]?.stringValue ?? "toastd refused the request"
        return .failure(ToastError(code, message, field: error?["field"]?.stringValue))
    }

    /// The error of a line that is an error reply; nil for a success reply
    /// or an event. For streams, where replies and events interleave.
    public static func refusal(_ line: JSONValue) -> ToastError? {
        guard line["ok"] == .bool(false), case .failure(let error) = reply(line) else { return nil }
        return error
    }

    /// The record members a toast carries in replies and events, besides its own fields.
    public static let recordMembers: Set<String> = ["id", "state", "repeat", "createdAt", "presentedAt", "expiresAt", "placement"]

    /// A toast as replies and events carry it (section 4 of PROTOCOL.md).
    public static func decodeRecord(_ value: JSONValue) throws(ToastError) -> ToastRecord {
        guard case .object(var members) = value else { throw ToastError.invalid("toast", "must be an object") }
        guard let id = members["id"]?.intValue, id > 0, let createdAt = members["createdAt"]?.intValue,
            let state = members["state"]?.stringValue.flatMap(ToastRecord.State.init(rawValue:))
        else {
            throw ToastError(.missingField, "a toast in a reply or event needs id, state and createdAt", field: "toast")
        }
        let repeatCount = Int(members["repeat"]?.intValue ?? 1)
        let presentedAt = members["presentedAt"]?.intValue
        let expiresAt = members["expiresAt"]?.intValue
        let placement = UInt64(max(0, members["placement"]?.intValue ?? 0))
        // Members this version does not know are a newer daemon's (10):
        // a client reads past them.
        for key in members.keys where !ToastMember.keys.contains(key) { members[key] = nil }
        let toast = try decodeToast(.object(members))
        return ToastRecord(
            id: ToastID(id), toast: toast, state: state, repeatCount: repeatCount, createdAt: createdAt,
            presentedAt: presentedAt, expiresAt: expiresAt, placement: placement
        )
    }

    /// A scheduler event (section 6.1); `nil` for notices to one connection
    /// (`snapshot`, `lagged`, `shutdown`) and for kinds this version does not know.
    public static func decodeEvent(_ value: JSONValue) throws(ToastError) -> ToastEvent? {
        guard let name = value["event"]?.stringValue, let seq = value["seq"]?.intValue, seq > 0,
            let time = value["time"]?.intValue
        else { return nil }
        func record() throws(ToastError) -> ToastRecord {
            guard let toast = value["toast"] else { throw ToastError(.missingField, "a \(name) event carries a toast", field: "toast") }
            return try decodeRecord(toast)
        }
        let kind: ToastEvent.Kind
        switch name {
        case "queued": kind = .queued(try record())
        case "presented": kind = .presented(try record())
        case "updated": kind = .updated(try record())
        case "dismissed":
            guard let reason = value["reason"]?.stringValue.flatMap(DismissReason.init(rawValue:)) else { return nil }
            kind = .dismissed(try record(), reason)
        case "cancelled":
            guard let reason = value["reason"]?.stringValue.flatMap(CancelReason.init(rawValue:)) else { return nil }
            kind = .cancelled(try record(), reason)
        case "action":
            guard let action = value["action"]?.stringValue else { return nil }
            kind = .action(try record(), actionID: action)
        case "paused": kind = .paused(level: Int(value["level"]?.intValue ?? Int64(PauseLevels().defaultLevel)))
        case "resumed": kind = .resumed
        case "modes":
            guard case .array(let modes)? = value["modes"] else { return nil }
            kind = .modes(modes.compactMap(\.stringValue))
        default: return nil
        }
        return ToastEvent(seq: UInt64(seq), time: time, kind: kind)
    }
}
