// SPDX-License-Identifier: Apache-2.0
/// The limits every toast must respect. They are part of the protocol
/// (protocol/PROTOCOL.md, "Limits") and are reported by `hello`.
/// Lengths count UTF-8 bytes.
public enum ToastLimits {
    public static let messageBytes = 4_096
    public static let titleBytes = 256
    public static let iconBytes = 64
    public static let sceneBytes = 64
    public static let reuseIDBytes = 256
    public static let sourceBytes = 128
    /// Freedesktop senders may give any number; dunst and mako offer every
    /// one. Sixteen is more than any sender we met (the spec sets no bound).
    public static let maxActions = 16
    public static let markupBytes = 8_192
    public static let imagePathBytes = 4_096
    /// The longer side of an image's pixels, after scaling (16 KiB of RGBA).
    public static let imagePixels = 64
    public static let categoryBytes = 64
    public static let desktopEntryBytes = 128
    public static let soundNameBytes = 128
    public static let actionIDBytes = 64
    public static let actionLabelBytes = 64
    public static let minSeconds = 0.1
    public static let maxSeconds = 86_400.0

    public static var asJSON: JSONValue {
        .object([
            "messageBytes": .int(Int64(messageBytes)),
            "titleBytes": .int(Int64(titleBytes)),
            "iconBytes": .int(Int64(iconBytes)),
            "sceneBytes": .int(Int64(sceneBytes)),
            "reuseIdBytes": .int(Int64(reuseIDBytes)),
            "sourceBytes": .int(Int64(sourceBytes)),
            "maxActions": .int(Int64(maxActions)),
            "actionIdBytes": .int(Int64(actionIDBytes)),
            "actionLabelBytes": .int(Int64(actionLabelBytes)),
            "markupBytes": .int(Int64(markupBytes)),
            "imagePathBytes": .int(Int64(imagePathBytes)),
            "imagePixels": .int(Int64(imagePixels)),
            "categoryBytes": .int(Int64(categoryBytes)),
            "desktopEntryBytes": .int(Int64(desktopEntryBytes)),
            "soundNameBytes": .int(Int64(soundNameBytes)),
            "minSeconds": .double(minSeconds),
            "maxSeconds": .double(maxSeconds),
        ])
    }
}

extension Toast {
    /// Checks every field against the rules of the protocol. The error names
    /// the field (as a path in the request, e.g. `toast.actions[1].id`) and
    /// the rule broken.
    public func validate(fieldPrefix prefix: String = "toast.") throws(ToastError) {
        try Self.checkText(message, field: prefix + "message", max: ToastLimits.messageBytes)
        if let title { try Self.checkText(title, field: prefix + "title", max: ToastLimits.titleBytes) }
        if let icon { try Self.checkText(icon, field: prefix + "icon", max: ToastLimits.iconBytes) }
        try Self.checkName(scene, field: prefix + "scene", max: ToastLimits.sceneBytes)
        if let reuseID { try Self.checkText(reuseID, field: prefix + "reuseId", max: ToastLimits.reuseIDBytes) }
        if let source { try Self.checkText(source, field: prefix + "source", max: ToastLimits.sourceBytes) }
        if let duration { try duration.validate(field: prefix + "duration") }
        try progress.validate(field: prefix + "progress")
        if !actions.isEmpty { try Self.checkActions(actions, field: prefix + "actions") }
        if let markup { try Self.checkText(markup, field: prefix + "markup", max: ToastLimits.markupBytes) }
        if let problem = image?.problem { throw .invalid(prefix + "image", "must be \(problem)") }
        if let category { try Self.checkText(category, field: prefix + "category", max: ToastLimits.categoryBytes) }
        if let desktopEntry { try Self.checkText(desktopEntry, field: prefix + "desktopEntry", max: ToastLimits.desktopEntryBytes) }
        if let soundName { try Self.checkText(soundName, field: prefix + "soundName", max: ToastLimits.soundNameBytes) }
    }

    /// Why `scene` cannot be a toast's scene, or nil if it can: the check an
    /// add's scene gets, for values given elsewhere (a rule's `set`).
    public static func problem(scene: String) -> String? {
        problem { () throws(ToastError) in try checkName(scene, field: "scene", max: ToastLimits.sceneBytes) }
    }

    /// Why `source` cannot be a toast's source, or nil if it can.
    public static func problem(source: String) -> String? {
        problem { () throws(ToastError) in try checkText(source, field: "source", max: ToastLimits.sourceBytes) }
    }

    /// Why `icon` cannot be a toast's icon, or nil if it can.
    public static func problem(icon: String) -> String? {
        problem { () throws(ToastError) in try checkText(icon, field: "icon", max: ToastLimits.iconBytes) }
    }

    private static func problem(_ check: () throws(ToastError) -> Void) -> String? {
        do throws(ToastError) {
            try check()
            return nil
        } catch {
            return error.message
        }
    }

    // The field's name is only built for an error: every add is checked
    // (by the decoder, and by the scheduler when something after the
    // decoder set a checked field), and almost none fails.
    static func checkText(_ text: String, field: @autoclosure () -> String, max: Int) throws(ToastError) {
        if text.isBlank {
            throw .invalid(field(), "must not be empty or only whitespace")
        }
        if text.utf8.count > max {
            throw .invalid(field(), "must be at most \(max) bytes of UTF-8 (got \(text.utf8.count))")
        }
    }

    /// Scene names and action ids are identifiers: letters, digits, `.`, `_`, `-`.
    static func checkName(_ name: String, field: @autoclosure () -> String, max: Int) throws(ToastError) {
        if name.isEmpty {
            throw .invalid(field(), "must not be empty")
        }
        if name.utf8.count > max {
            throw .invalid(field(), "must be at most \(max) bytes (got \(name.utf8.count))")
        }
        if !name.utf8.allSatisfy(isNameByte) {
            throw .invalid(field(), "may contain only ASCII letters, digits, '.', '_' and '-'")
        }
    }

    /// Whether `byte` may be part of a name (`checkName`).
    package static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    static func checkActions(_ actions: [ToastAction], field: String) throws(ToastError) {
        if actions.count > ToastLimits.maxActions {
            throw .invalid(field, "at most \(ToastLimits.maxActions) actions are allowed (got \(actions.count))")
        }
        for (index, action) in actions.enumerated() {
            try checkName(action.id, field: "\(field)[\(index)].id", max: ToastLimits.actionIDBytes)
            try checkText(action.label, field: "\(field)[\(index)].label", max: ToastLimits.actionLabelBytes)
            // At most sixteen: comparing with the ones before beats a set.
            if actions[..<index].contains(where: { $0.id == action.id }) {
                throw .invalid("\(field)[\(index)].id", "duplicate action id '\(action.id)'")
            }
        }
    }
}

extension ToastDuration {
    package func validate(field: @autoclosure () -> String) throws(ToastError) {
        guard case .seconds(let seconds) = self else { return }
        if seconds.isNaN {
            throw .invalid(field(), "must be a number of seconds, not NaN")
        }
        if seconds < ToastLimits.minSeconds || seconds > ToastLimits.maxSeconds {
            throw .invalid(
                field(),
                "must be between \(ToastLimits.minSeconds) and \(Int(ToastLimits.maxSeconds)) seconds (got \(seconds)); use \"indefinite\" for a toast that stays"
            )
        }
    }
}

extension ToastProgress {
    package func validate(field: @autoclosure () -> String) throws(ToastError) {
        guard case .fraction(let value) = self else { return }
        if !(0...1).contains(value) {
            throw .invalid(field(), "a progress fraction must be between 0 and 1 (got \(value))")
        }
    }
}

extension String {
    /// Empty, or only white space: what no text member of a toast may be.
    public var isBlank: Bool {
        // Almost every text starts with a printable ASCII character, which
        // is not white space: no Unicode property lookup for those.
        if let first = utf8.first, first > 0x20, first < 0x7F { return false }
        return unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }
}
