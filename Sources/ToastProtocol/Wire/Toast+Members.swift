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
        case .message: message = try Self.string(value, field)
        case .title: title = try Self.string(value, field)
        case .icon: icon = try Self.string(value, field)
        case .role: role = try FieldReader.enumeration(try Self.string(value, field), ToastRole.self, field: field)
        case .duration: duration = try WireDecoder.decodeDuration(value, field: field)
        case .alignment: alignment = try FieldReader.enumeration(try Self.string(value, field), ToastAlignment.self, field: field)
        case .scene: scene = try Self.string(value, field)
        case .reuseID: reuseID = try Self.string(value, field)
        case .progress: progress = try WireDecoder.decodeProgress(value, field: field) ?? .none
        case .dismissible: dismissible = try Self.bool(value, field)
        case .closeButton: closeButton = try Self.bool(value, field)
        case .actions: actions = try WireDecoder.decodeActions(try Self.array(value, field), field: field) ?? []
        case .source: source = try Self.string(value, field)
        case .cancellation:
            cancellation = try FieldReader.enumeration(try Self.string(value, field), CancellationPolicy.self, field: field)
        case .invalidation: invalidation = try WireDecoder.decodeInvalidation(try Self.array(value, field), field: field)
        case .resident: resident = try Self.bool(value, field)
        case .transient: transient = try Self.bool(value, field)
        case .level: level = try Self.level(value, field)
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
        }
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
        }
    }

    // MARK: - Checks with the decoder's wording

    static func string(_ value: JSONValue, _ field: String) throws(ToastError) -> String {
        guard let string = value.stringValue else { throw ToastError.invalid(field, "must be a string, not \(value.typeName)") }
        return string
    }

    static func bool(_ value: JSONValue, _ field: String) throws(ToastError) -> Bool {
        guard let bool = value.boolValue else { throw ToastError.invalid(field, "must be true or false, not \(value.typeName)") }
        return bool
    }

    static func array(_ value: JSONValue, _ field: String) throws(ToastError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw ToastError.invalid(field, "must be an array, not \(value.typeName)") }
        return elements
    }

    static func level(_ value: JSONValue, _ field: String) throws(ToastError) -> Int {
        guard let int = value.intValue, PauseLevels.range.contains(Int(clamping: int)) else {
            throw ToastError.invalid(field, "must be an integer from 0 to 100, not \(value.serialized.prefix(32))")
        }
        return Int(int)
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
        case .alignment, .scene, .reuseID, .source, .cancellation, .invalidation, .resident, .transient, .level:
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
        case .alignment, .scene, .reuseID, .source, .cancellation, .invalidation, .resident, .transient, .level: nil
        }
    }
}
