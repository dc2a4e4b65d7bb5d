// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

extension EventFilter {
    /// A filter from a command line's words: a scene, and role names
    /// (none: every role). Unknown role names are left out; a tool checks
    /// them first, as toast-tail and toastctl do.
    public init(scene: String?, roleNames: [String]) {
        self.init(scene: scene, anyOf: roleNames.compactMap(ToastRole.init(rawValue:)))
    }

    /// A scene and a list of roles, as options give them (none: every role).
    public init(scene: String?, anyOf roles: [ToastRole]) {
        self.init(scene: scene, roles: roles.isEmpty ? nil : Set(roles))
    }
}
