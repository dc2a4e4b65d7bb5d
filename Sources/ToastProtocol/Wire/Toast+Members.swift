// SPDX-License-Identifier: Apache-2.0
/// What each member of a toast (`ToastMember`) is, one arm each: its
/// default, how it is read from JSON and checked, its JSON value, and its
/// bytes in a line. Every decoder and encoder of a toast goes through these.
extension Toast {
    /// Whether `member` holds what its absence means (`Toast.init`'s
    /// defaults, which the decoder gives absent members). The message has
    /// no default.
    public func isDefault(_ member: ToastMember) -> Bool {
        switch member {
        case .message: false
        case .title: title == nil
        case .icon: icon == nil
        case .role: role == .plain
        case .duration: duration == nil
        case .alignment: alignment == .top
        case .scene: scene == Toast.defaultScene
        case .reuseID: reuseID == nil
        case .progress: progress == .none
        case .dismissible: dismissible
        case .closeButton: !closeButton
        case .actions: actions.isEmpty
        case .source: source == nil
        case .cancellation: cancellation == .presentation
        case .invalidation: invalidation.isEmpty
        case .resident: !resident
        case .transient: !transient
        case .level: level == nil
        case .markup: markup == nil
        case .image: image == nil
        case .category: category == nil
        case .desktopEntry: desktopEntry == nil
        case .urgency: urgency == nil
        case .soundName: soundName == nil
        case .dedupe: dedupe
        }
    }

    /// Whether `member` is written in `form`.
    @inline(__always)
    public func writes(_ member: ToastMember, in form: ToastMember.Form) -> Bool {
        member.isAlwaysWritten(in: form) || !isDefault(member)
    }

    /// Sets `member` from its JSON value, checked as `add` checks it (the
    /// toast as a whole is validated after). Errors name `toast.<key>`.
    package mutating func decode(_ member: ToastMember, from value: JSONValue) throws(ToastError) {
        let field = "toast." + member.name
        switch member {
        case .message: message = try FieldReader.string(value, field: field)
        case .title: title = try FieldReader.string(value, field: field)
        case .icon: icon = try FieldReader.string(value, field: field)
        case .role: role = try FieldReader.enumeration(try FieldReader.string(value, field: field), ToastRole.self, field: field)
        case .duration: duration = try WireDecoder.decodeDuration(value, field: field)
        case .alignment: alignment = try FieldReader.enumeration(try FieldReader.string(value, field: field), ToastAlignment.self, field: field)
        case .scene: scene = try FieldReader.string(value, field: field)
        case .reuseID: reuseID = try FieldReader.string(value, field: field)
        case .progress: progress = try WireDecoder.decodeProgress(value, field: field) ?? .none
        case .dismissible: dismissible = try FieldReader.bool(value, field: field)
        case .closeButton: closeButton = try FieldReader.bool(value, field: field)
        case .actions: actions = try WireDecoder.decodeActions(try FieldReader.array(value, field: field), field: field) ?? []
        case .source: source = try FieldReader.string(value, field: field)
        case .cancellation:
            cancellation = try FieldReader.enumeration(try FieldReader.string(value, field: field), CancellationPolicy.self, field: field)
        case .invalidation: invalidation = try WireDecoder.decodeInvalidation(try FieldReader.array(value, field: field), field: field)
        case .resident: resident = try FieldReader.bool(value, field: field)
        case .transient: transient = try FieldReader.bool(value, field: field)
        case .level: level = try FieldReader.level(value, field: field)
        case .markup: markup = try FieldReader.string(value, field: field)
        case .image: image = try Self.image(value, field)
        case .category: category = try FieldReader.string(value, field: field)
        case .desktopEntry: desktopEntry = try FieldReader.string(value, field: field)
        case .urgency: urgency = try FieldReader.enumeration(try FieldReader.string(value, field: field), ToastUrgency.self, field: field)
        case .soundName: soundName = try FieldReader.string(value, field: field)
        case .dedupe: dedupe = try FieldReader.bool(value, field: field)
        }
    }

    /// The member's JSON value (`null` for an absent optional).
    public func jsonValue(of member: ToastMember) -> JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        switch member {
        case .message: return .string(message)
        case .title: return optional(title)
        case .icon: return optional(icon)
        case .role: return .string(role.rawValue)
        case .duration: return duration.map(WireEncoder.duration) ?? .null
        case .alignment: return .string(alignment.rawValue)
        case .scene: return .string(scene)
        case .reuseID: return optional(reuseID)
        case .progress: return WireEncoder.progress(progress) ?? "none"
        case .dismissible: return .bool(dismissible)
        case .closeButton: return .bool(closeButton)
        case .actions: return WireEncoder.actions(actions)
        case .source: return optional(source)
        case .cancellation: return .string(cancellation.rawValue)
        case .invalidation: return .array(invalidation.names.map { .string($0) })
        case .resident: return .bool(resident)
        case .transient: return .bool(transient)
        case .level: return level.map { .int(Int64($0)) } ?? .null
        case .markup: return optional(markup)
        case .image: return image.map(Self.jsonValue(of:)) ?? .null
        case .category: return optional(category)
        case .desktopEntry: return optional(desktopEntry)
        case .urgency: return urgency.map { .string($0.rawValue) } ?? .null
        case .soundName: return optional(soundName)
        case .dedupe: return .bool(dedupe)
        }
    }

    /// `{"path": …}`, or `{"height": h, "rgba": base64, "width": w}`.
    static func jsonValue(of image: ToastImage) -> JSONValue {
        switch image {
        case .path(let path): ["path": .string(path)]
        case .pixels(let width, let height, let rgba):
            ["width": .int(Int64(width)), "height": .int(Int64(height)), "rgba": .string(Base64.encode(rgba))]
        }
    }

    static func image(_ value: JSONValue, _ field: String) throws(ToastError) -> ToastImage {
        let fields = try FieldReader(value, path: field + ".")
        try fields.rejectUnknown(allowed: ["path", "width", "height", "rgba"])
        let image: ToastImage
        if let path = try fields.string("path") {
            guard fields.members.count == 1 else { throw ToastError.invalid(field, "is a path or pixels, not both") }
            image = .path(path)
        } else {
            guard let width = try fields.integer("width"), let height = try fields.integer("height"),
                let encoded = try fields.string("rgba")
            else {
                throw ToastError.invalid(field, "must be {\"path\": …} or {\"width\": …, \"height\": …, \"rgba\": base64}")
            }
            guard encoded.utf8.count <= (ToastLimits.imagePixels * ToastLimits.imagePixels * 4 + 2) / 3 * 4,
                let rgba = Base64.decode(encoded)
            else {
                throw ToastError.invalid(field + ".rgba", "must be base64 of at most \(ToastLimits.imagePixels)×\(ToastLimits.imagePixels) RGBA pixels")
            }
            image = .pixels(width: Int(clamping: width), height: Int(clamping: height), rgba: rgba)
        }
        if let problem = image.problem { throw ToastError.invalid(field, "must be \(problem)") }
        return image
    }

    /// Writes the member's value (its key is the caller's), as
    /// `jsonValue(of:)` serializes, byte for byte.
    func write(_ member: ToastMember, into out: inout LineWriter) {
        func quoted(_ name: StaticString) {
            out.byte(UInt8(ascii: "\""))
            out.bytes(name)
            out.byte(UInt8(ascii: "\""))
        }
        func optional(_ text: String?) {
            if let text { out.string(text) } else { out.bytes("null") }
        }
        switch member {
        case .message: out.string(message)
        case .title: optional(title)
        case .icon: optional(icon)
        case .role: quoted(WireEncoder.wireName(role))
        case .duration:
            switch duration {
            case nil: out.bytes("null")
            case .short?: quoted("short")
            case .long?: quoted("long")
            case .longer?: quoted("longer")
            case .indefinite?: quoted("indefinite")
            case .seconds(let seconds)?: out.number(seconds)
            }
        case .alignment: quoted(WireEncoder.wireName(alignment))
        case .scene: out.string(scene)
        case .reuseID: optional(reuseID)
        case .progress:
            switch progress {
            case .none: quoted("none")
            case .indeterminate: quoted("indeterminate")
            case .fraction(let value): out.number(value)
            }
        case .dismissible: out.bytes(dismissible ? "true" : "false")
        case .closeButton: out.bytes(closeButton ? "true" : "false")
        case .actions:
            out.byte(UInt8(ascii: "["))
            for (index, action) in actions.enumerated() {
                if index > 0 { out.byte(UInt8(ascii: ",")) }
                out.bytes(#"{"id":"#)
                out.string(action.id)
                out.bytes(#","label":"#)
                out.string(action.label)
                out.byte(UInt8(ascii: "}"))
            }
            out.byte(UInt8(ascii: "]"))
        case .source: optional(source)
        case .cancellation: quoted(WireEncoder.wireName(cancellation))
        case .invalidation:
            out.byte(UInt8(ascii: "["))
            var first = true
            for (name, option) in InvalidationOptions.named where invalidation.contains(option) {
                if !first { out.byte(UInt8(ascii: ",")) }
                first = false
                out.string(name)
            }
            out.byte(UInt8(ascii: "]"))
        case .resident: out.bytes(resident ? "true" : "false")
        case .transient: out.bytes(transient ? "true" : "false")
        case .level:
            if let level { out.integer(Int64(level)) } else { out.bytes("null") }
        case .markup: optional(markup)
        case .image:
            switch image {
            case nil: out.bytes("null")
            case .path(let path)?:
                out.bytes(#"{"path":"#)
                out.string(path)
                out.byte(UInt8(ascii: "}"))
            case .pixels(let width, let height, let rgba)?:
                out.bytes(#"{"height":"#)
                out.integer(Int64(height))
                out.bytes(#","rgba":"#)
                out.string(Base64.encode(rgba))
                out.bytes(#","width":"#)
                out.integer(Int64(width))
                out.byte(UInt8(ascii: "}"))
            }
        case .category: optional(category)
        case .desktopEntry: optional(desktopEntry)
        case .urgency:
            switch urgency {
            case nil: out.bytes("null")
            case .low?: quoted("low")
            case .normal?: quoted("normal")
            case .critical?: quoted("critical")
            }
        case .soundName: optional(soundName)
        case .dedupe: out.bytes(dedupe ? "true" : "false")
        }
    }
}

extension ToastPatch {
    /// Sets `member` from its value in an update (`null` resets a
    /// resettable member); errors as `Toast.decode` words them.
    package mutating func decode(_ member: ToastMember, from value: JSONValue) throws(ToastError) {
        if value == .null, member.isResettable {
            switch member {
            case .title: title = .some(nil)
            case .icon: icon = .some(nil)
            case .markup: markup = .some(nil)
            case .image: image = .some(nil)
            case .category: category = .some(nil)
            case .desktopEntry: desktopEntry = .some(nil)
            case .urgency: urgency = .some(nil)
            case .soundName: soundName = .some(nil)
            default: duration = .some(nil)
            }
            return
        }
        var toast = Toast(message: "")
        try toast.decode(member, from: value)
        switch member {
        case .message: message = toast.message
        case .title: title = .some(toast.title)
        case .icon: icon = .some(toast.icon)
        case .role: role = toast.role
        case .duration: duration = .some(toast.duration)
        case .progress: progress = toast.progress
        case .dismissible: dismissible = toast.dismissible
        case .closeButton: closeButton = toast.closeButton
        case .actions: actions = toast.actions
        case .markup: markup = .some(toast.markup)
        case .image: image = .some(toast.image)
        case .category: category = .some(toast.category)
        case .desktopEntry: desktopEntry = .some(toast.desktopEntry)
        case .urgency: urgency = .some(toast.urgency)
        case .soundName: soundName = .some(toast.soundName)
        case .alignment, .scene, .reuseID, .source, .cancellation, .invalidation, .resident, .transient, .level, .dedupe:
            preconditionFailure("\(member.name) is not patchable")
        }
    }

    /// The member's value in an update request: nil when the patch leaves it
    /// alone, `null` when it resets it.
    public func jsonValue(of member: ToastMember) -> JSONValue? {
        switch member {
        case .message: message.map(JSONValue.string)
        case .title: title.map { $0.map(JSONValue.string) ?? .null }
        case .icon: icon.map { $0.map(JSONValue.string) ?? .null }
        case .role: role.map { .string($0.rawValue) }
        case .duration: duration.map { $0.map(WireEncoder.duration) ?? .null }
        case .progress: progress.map { WireEncoder.progress($0) ?? "none" }
        case .dismissible: dismissible.map(JSONValue.bool)
        case .closeButton: closeButton.map(JSONValue.bool)
        case .actions: actions.map(WireEncoder.actions)
        case .markup: markup.map { $0.map(JSONValue.string) ?? .null }
        case .image: image.map { $0.map(Toast.jsonValue(of:)) ?? .null }
        case .category: category.map { $0.map(JSONValue.string) ?? .null }
        case .desktopEntry: desktopEntry.map { $0.map(JSONValue.string) ?? .null }
        case .urgency: urgency.map { $0.map { .string($0.rawValue) } ?? .null }
        case .soundName: soundName.map { $0.map(JSONValue.string) ?? .null }
        case .alignment, .scene, .reuseID, .source, .cancellation, .invalidation, .resident, .transient, .level, .dedupe: nil
        }
    }
}
