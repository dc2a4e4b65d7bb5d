// SPDX-License-Identifier: Apache-2.0
/// The members of a toast, in one table: each one's wire key, whether
/// `update` may change it (and reset it with `null`), and in which forms it
/// is written when it holds its default. The rest of what a member is,
/// its default and its checks, its JSON value and its bytes, is one arm of
/// an exhaustive switch over this enum each (`Toast+Members.swift`, and the
/// packer in ToastCore's `PackedRecord`): the general decoder, the add fast
/// path, the encoders of every form and the packer read the table and those
/// switches, so a new member is a case here, and the compiler names every
/// arm still to write.
///
/// The cases are in the order the decoder checks them, which decides which
/// error a request with several bad members gets.
public enum ToastMember: UInt8, CaseIterable, Sendable, Hashable {
    case message, title, icon, role, duration, alignment, scene, reuseID, progress, dismissible, closeButton
    case actions, source, cancellation, invalidation, resident, transient, level
    case markup, image, category, desktopEntry, urgency, soundName, dedupe

    /// The member's key on the wire.
    public var key: StaticString {
        switch self {
        case .message: "message"
        case .title: "title"
        case .icon: "icon"
        case .role: "role"
        case .duration: "duration"
        case .alignment: "alignment"
        case .scene: "scene"
        case .reuseID: "reuseId"
        case .progress: "progress"
        case .dismissible: "dismissible"
        case .closeButton: "closeButton"
        case .actions: "actions"
        case .source: "source"
        case .cancellation: "cancellation"
        case .invalidation: "invalidation"
        case .resident: "resident"
        case .transient: "transient"
        case .level: "level"
        case .markup: "markup"
        case .image: "image"
        case .category: "category"
        case .desktopEntry: "desktopEntry"
        case .urgency: "urgency"
        case .soundName: "soundName"
        case .dedupe: "dedupe"
        }
    }

    public var name: String { Self.names[Int(rawValue)] }

    /// Whether `update` may change it. The others place or identify a toast;
    /// it is added again to change them.
    public var isPatchable: Bool {
        switch self {
        case .message, .title, .icon, .role, .duration, .progress, .dismissible, .closeButton, .actions: true
        case .markup, .image, .category, .desktopEntry, .urgency, .soundName: true
        case .alignment, .scene, .reuseID, .source, .cancellation, .invalidation, .resident, .transient, .level, .dedupe: false
        }
    }

    /// Whether `update` may give it `null`, back to "none" or the default.
    public var isResettable: Bool {
        switch self {
        case .title, .icon, .duration, .markup, .image, .category, .desktopEntry, .urgency, .soundName: true
        default: false
        }
    }

    /// The forms a toast is written in.
    public enum Form: Sendable {
        /// `toast` in events, replies and lists: the canonical form.
        case full
        /// A database row: what differs from the defaults.
        case stored
        /// `add`'s `toast`, as a client sends it.
        case request
    }

    /// Whether the member is written in `form` even when it holds its default.
    public func isAlwaysWritten(in form: Form) -> Bool {
        switch (form, self) {
        case (_, .message): true
        case (.full, .actions), (.full, .alignment), (.full, .cancellation), (.full, .closeButton), (.full, .dismissible),
            (.full, .invalidation), (.full, .role), (.full, .scene):
            true
        case (.stored, .role), (.stored, .scene): true
        default: false
        }
    }

    private static let names = allCases.map { $0.key.description }
    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.key.description, $0) })

    /// The member a key names.
    public init?(named key: String) {
        guard let member = Self.byName[key] else { return nil }
        self = member
    }

    /// Every key, for `rejectUnknown`; and those `update` takes.
    public static let keys = Set(names)
    public static let patchKeys = Set(allCases.filter(\.isPatchable).map(\.name))
}
