// SPDX-License-Identifier: Apache-2.0
import ToastCore
@testable import ToastTail

/// Builds wire toasts and events the way toastd encodes them.
enum Wire {
    static let now: Int64 = 1_700_000_000_000

    static func toast(
        _ id: Int64, _ message: String, title: String? = nil, icon: String? = nil, role: String = "plain",
        alignment: String = "top", scene: String = "default", shown: Bool = true, duration: JSONValue? = nil,
        expiresIn: Int64? = nil, progress: JSONValue? = nil, repeatCount: Int64 = 1, dismissible: Bool = true,
        closeButton: Bool = false, actions: [(String, String)] = []
    ) -> JSONValue {
        var members: JSONObject = [
            "id": .int(id), "message": .string(message), "role": .string(role), "alignment": .string(alignment),
            "scene": .string(scene), "state": .string(shown ? "shown" : "queued"), "repeat": .int(repeatCount),
            "dismissible": .bool(dismissible), "closeButton": .bool(closeButton), "createdAt": .int(now - 1_000),
            "actions": .array(actions.map { ["id": .string($0.0), "label": .string($0.1)] }),
            "cancellation": "presentation", "invalidation": [],
        ]
        if let title { members["title"] = .string(title) }
        if let icon { members["icon"] = .string(icon) }
        if let duration { members["duration"] = duration }
        if let progress { members["progress"] = progress }
        if shown { members["presentedAt"] = .int(now - 1_000) }
        if shown, let expiresIn { members["expiresAt"] = .int(now + expiresIn) }
        return .object(members)
    }

    static func event(_ name: String, _ toast: JSONValue, reason: String? = nil) -> JSONValue {
        var members: JSONObject = ["event": .string(name), "seq": 1, "time": .int(now), "toast": toast]
        if let reason { members["reason"] = .string(reason) }
        return .object(members)
    }

    static func snapshot(_ toasts: [JSONValue], paused: Bool = false) -> JSONValue {
        ["event": "snapshot", "seq": 1, "time": .int(now), "paused": .bool(paused), "sequence": 1, "stacks": [], "toasts": .array(toasts)]
    }

    static func model(_ toasts: [JSONValue], paused: Bool = false, scene: String = "default") -> TailModel {
        var model = TailModel(scene: scene)
        model.apply(snapshot(toasts, paused: paused))
        return model
    }
}
