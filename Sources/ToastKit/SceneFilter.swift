import ToastCore

/// The `scene` and `roles` members that `list` and `subscribe` share, as
/// toastctl and toast-tail send them.
public struct SceneFilter: Sendable, Hashable {
    public var scene: String?
    public var roles: [String]

    public init(scene: String?, roles: [String]) {
        self.scene = scene
        self.roles = roles
    }

    /// The request `op` narrowed by this filter.
    public func request(_ op: String) -> JSONValue {
        var request: [String: JSONValue] = ["op": .string(op)]
        if let scene { request["scene"] = .string(scene) }
        if !roles.isEmpty { request["roles"] = .array(roles.map { .string($0) }) }
        return .object(request)
    }
}
