import ToastCore

extension EventFilter {
    /// A filter from a command line's words: a scene, and role names
    /// (none: every role). Unknown role names are left out; a tool checks
    /// them first, as toast-tail and toastctl do.
    public init(scene: String?, roleNames: [String]) {
        let roles = Set(roleNames.compactMap(ToastRole.init(rawValue:)))
        self.init(scene: scene, roles: roles.isEmpty ? nil : roles)
    }
}
