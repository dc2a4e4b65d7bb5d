/// Requests, as a client writes them: the typed values of `WireDecoder`'s
/// output turned back into wire form, so that a client in this package
/// never spells a request by hand. `WireDecoder.decode` reads each of them
/// back to the same value (a test holds them to that).
extension WireEncoder {
    /// The `toast` member of `add`: every member the toast sets, defaults left out.
    public static func requestToast(_ toast: Toast) -> JSONValue {
        var members: [String: JSONValue] = ["message": .string(toast.message)]
        if let title = toast.title { members["title"] = .string(title) }
        if let icon = toast.icon { members["icon"] = .string(icon) }
        if toast.role != .plain { members["role"] = .string(toast.role.rawValue) }
        if let duration = toast.duration { members["duration"] = Self.duration(duration) }
        if toast.alignment != .top { members["alignment"] = .string(toast.alignment.rawValue) }
        if toast.scene != Toast.defaultScene { members["scene"] = .string(toast.scene) }
        if let reuseID = toast.reuseID { members["reuseId"] = .string(reuseID) }
        if let progress = progress(toast.progress) { members["progress"] = progress }
        if !toast.dismissible { members["dismissible"] = false }
        if toast.closeButton { members["closeButton"] = true }
        if !toast.actions.isEmpty { members["actions"] = actions(toast.actions) }
        if let source = toast.source { members["source"] = .string(source) }
        if toast.cancellation != .presentation { members["cancellation"] = .string(toast.cancellation.rawValue) }
        if toast.resident { members["resident"] = true }
        if toast.transient { members["transient"] = true }
        if let level = toast.level { members["level"] = .int(Int64(level)) }
        if !toast.invalidation.isEmpty { members["invalidation"] = .array(toast.invalidation.names.map { .string($0) }) }
        return .object(members)
    }

    /// `{"op":"update","id":N,"toast":{...}}`: the patch's members, `null` for a reset.
    public static func updateRequest(id: ToastID, patch: ToastPatch) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let message = patch.message { members["message"] = .string(message) }
        if let title = patch.title { members["title"] = title.map { .string($0) } ?? .null }
        if let icon = patch.icon { members["icon"] = icon.map { .string($0) } ?? .null }
        if let role = patch.role { members["role"] = .string(role.rawValue) }
        if let duration = patch.duration { members["duration"] = duration.map(Self.duration) ?? .null }
        if let progress = patch.progress { members["progress"] = Self.progress(progress) ?? "none" }
        if let dismissible = patch.dismissible { members["dismissible"] = .bool(dismissible) }
        if let closeButton = patch.closeButton { members["closeButton"] = .bool(closeButton) }
        if let actions = patch.actions { members["actions"] = Self.actions(actions) }
        return ["op": "update", "id": .int(Int64(id)), "toast": .object(members)]
    }

    static func progress(_ progress: ToastProgress) -> JSONValue? {
        switch progress {
        case .none: nil
        case .indeterminate: "indeterminate"
        case .fraction(let value): .double(value)
        }
    }

    static func actions(_ actions: [ToastAction]) -> JSONValue {
        .array(actions.map { ["id": .string($0.id), "label": .string($0.label)] })
    }
}
