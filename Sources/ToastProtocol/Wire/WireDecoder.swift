// SPDX-License-Identifier: Apache-2.0
/// Turns request lines into typed requests. Everything that can be wrong
/// with a line comes back as a `ToastError` naming the field and the rule.
public enum WireDecoder {
    /// A request line that could not be decoded, with the `ref` to echo when
    /// the line got far enough to have one.
    public struct Failure: Error, Sendable, Hashable {
        public var ref: JSONValue?
        public var error: ToastError
    }

    /// Decodes one line (without its newline).
    public static func decode<Bytes: Collection<UInt8>>(line: Bytes) -> Result<RequestEnvelope, Failure> {
        let fast = line.withContiguousStorageIfAvailable(fastAdd) ?? Array(line).withUnsafeBufferPointer(fastAdd)
        if let (toast, defaulted) = fast {
            return .success(RequestEnvelope(ref: nil, request: .command(.add(toast)), defaulted: defaulted))
        }
        return decodeGenerally(line: line)
    }

    /// Decodes one line through a `JSONValue`: every request, and every
    /// error. `decode(line:)` tries the add fast path first.
    static func decodeGenerally<Bytes: Collection<UInt8>>(line: Bytes) -> Result<RequestEnvelope, Failure> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            switch error {
            case .invalidUTF8:
                return .failure(Failure(ref: nil, error: ToastError(.invalidUTF8, "the line is not valid UTF-8")))
            case .invalidJSON(let detail):
                return .failure(
                    Failure(ref: nil, error: ToastError(.invalidJSON, "the line is not valid JSON: \(detail)"))
                )
            }
        }
        let ref = value["ref"]
        do {
            let request = try decode(value)
            var defaulted: ToastFieldSet = []
            if case .command(.add) = request, case .object(let toast)? = value["toast"] {
                if toast["duration"] == nil { defaulted.insert(.duration) }
                if toast["alignment"] == nil { defaulted.insert(.alignment) }
                if toast["dismissible"] == nil { defaulted.insert(.dismissible) }
            }
            return .success(RequestEnvelope(ref: ref, request: request, defaulted: defaulted))
        } catch {
            return .failure(Failure(ref: ref, error: error))
        }
    }

    public static func decode(line: String) -> Result<RequestEnvelope, Failure> {
        decode(line: Array(line.utf8))
    }

    static func decode(_ value: JSONValue) throws(ToastError) -> Request {
        let fields = try FieldReader(value, path: "")
        guard fields.has("op") else {
            throw ToastError(.invalidRequest, "every request needs an 'op' field naming the operation", field: "op")
        }
        let op = try fields.requiredString("op")
        func only(_ keys: String...) throws(ToastError) {
            try fields.rejectUnknown(allowed: keys + ["op", "ref"])
        }
        switch op {
        case "hello":
            try only("version", "client", "source", "bindSource")
            guard let version = try fields.integer("version") else { throw fields.missing("version") }
            let source = try fields.string("source")
            if let source { try Toast.checkText(source, field: "source", max: ToastLimits.sourceBytes) }
            let bindSource = try fields.bool("bindSource") ?? false
            if bindSource && source == nil {
                throw ToastError(.missingField, "bindSource needs a 'source' to bind", field: "source")
            }
            return .hello(
                Request.Hello(
                    version: Int(clamping: version), client: try fields.string("client"), source: source,
                    bindSource: bindSource
                )
            )
        case "add":
            try only("toast")
            guard let toast = fields.members["toast"] else { throw fields.missing("toast") }
            return .command(.add(try decodeToast(toast)))
        case "update":
            try only("id", "reuseId", "scene", "toast")
            let target = try decodeTarget(fields)
            guard let patch = fields.members["toast"] else { throw fields.missing("toast") }
            return .command(.update(target, try decodePatch(patch)))
        case "remove":
            try only("id", "reuseId", "scene")
            return .command(.remove(try decodeTarget(fields)))
        case "dismiss":
            try only("id", "reuseId", "scene")
            return .command(.dismiss(try decodeTarget(fields)))
        case "invoke":
            try only("id", "reuseId", "scene", "action")
            let target = try decodeTarget(fields)
            let action = try fields.requiredString("action")
            try Toast.checkName(action, field: "action", max: ToastLimits.actionIDBytes)
            return .command(.invoke(target, actionID: action))
        case "clear":
            try only("scene", "alignment", "force")
            let scene = try fields.string("scene")
            if let scene { try Toast.checkName(scene, field: "scene", max: ToastLimits.sceneBytes) }
            return .command(
                .clear(
                    ClearScope(
                        scene: scene,
                        alignment: try fields.enumeration("alignment", ToastAlignment.self),
                        force: try fields.bool("force") ?? false
                    )
                )
            )
        case "list":
            try only("scene", "roles", "offset", "limit")
            let offset = try fields.integer("offset", from: 0) ?? 0
            let limit = try fields.integer("limit") ?? UInt64(ListPage.maxLimit)
            guard limit <= ListPage.maxLimit else {
                throw ToastError.invalid("limit", "a page holds at most \(ListPage.maxLimit) toasts; `next` gives the rest")
            }
            return .list(try decodeFilter(fields), page: ListPage(offset: Int(clamping: offset), limit: Int(limit)))
        case "pause":
            try only("level", "toggle")
            let level = try fields.level("level")
            if level == 0 { throw ToastError.invalid("level", "a pause level is 1 to 100; 0 is `resume`") }
            return try fields.bool("toggle") == true ? .togglePause(level: level) : .command(.pause(level: level))
        case "mode":
            try only("set", "add", "remove", "toggle")
            let given = ["set", "add", "remove", "toggle"].filter(fields.has)
            guard given.count <= 1 else {
                throw ToastError(.invalidRequest, "give one of 'set', 'add', 'remove' or 'toggle', not \(given.joined(separator: " and "))", field: given[1])
            }
            func name(_ key: String) throws(ToastError) -> String {
                let name = try fields.requiredString(key)
                try Toast.checkName(name, field: key, max: ToastLimits.sceneBytes)
                return name
            }
            switch given.first {
            case "set"?:
                var names: [String] = []
                for (index, raw) in (try fields.array("set") ?? []).enumerated() {
                    guard let name = raw.stringValue else { throw ToastError.invalid("set[\(index)]", "must be a mode name (a string)") }
                    try Toast.checkName(name, field: "set[\(index)]", max: ToastLimits.sceneBytes)
                    names.append(name)
                }
                return .mode(.set(names))
            case "add"?: return .mode(.add(try name("add")))
            case "remove"?: return .mode(.remove(try name("remove")))
            case "toggle"?: return .mode(.toggle(try name("toggle")))
            default: return .mode(.list)
            }
        case "inhibit":
            try only("reason")
            let reason = try fields.string("reason")
            if let reason { try Toast.checkText(reason, field: "reason", max: ToastLimits.sourceBytes) }
            return .inhibit(reason: reason)
        case "uninhibit":
            try only()
            return .uninhibit
        case "reload":
            try only()
            return .reload
        case "resume":
            try only()
            return .command(.resume)
        case "endSource":
            try only("source")
            let source = try fields.requiredString("source")
            try Toast.checkText(source, field: "source", max: ToastLimits.sourceBytes)
            return .command(.endSource(source))
        case "subscribe":
            try only("scene", "roles", "snapshot", "since", "instance")
            let instance = try fields.string("instance")
            if instance != nil && !fields.has("since") {
                throw ToastError(.missingField, "'instance' names the instance of 'since'; give both", field: "since")
            }
            return .subscribe(
                Request.Subscribe(
                    filter: try decodeFilter(fields), snapshot: try fields.bool("snapshot") ?? true,
                    since: try fields.integer("since", from: 0), instance: instance
                )
            )
        case "status":
            try only()
            return .status
        case "history":
            try only("scene", "roles", "source", "since", "limit", "before")
            var query = ToastHistory.Query(filter: try decodeFilter(fields))
            query.source = try fields.string("source")
            if let source = query.source { try Toast.checkText(source, field: "source", max: ToastLimits.sourceBytes) }
            query.since = try fields.integer("since", from: 0).map { ToastInstant($0) }
            query.limit = try fields.integer("limit").map { Int(clamping: $0) }
            query.before = try fields.integer("before")
            return .history(query)
        case "restore":
            try only("id", "latest")
            switch (try fields.integer("id"), try fields.bool("latest") ?? false) {
            case (let id?, false): return .restore(id)
            case (nil, true): return .restore(nil)
            case (.some, true):
                throw ToastError(.invalidRequest, "name the entry by 'id' or ask for the 'latest', not both", field: "latest")
            case (nil, false):
                throw ToastError(.missingField, "name the history entry by 'id', or give \"latest\":true", field: "id")
            }
        case "clearHistory":
            try only("id")
            return .clearHistory(try fields.integer("id"))
        default:
            throw ToastError(
                .unknownOp,
                "unknown op '\(op)'; this server knows: \(Request.operations.joined(separator: ", "))",
                field: "op"
            )
        }
    }

    // MARK: - Parts

    static func decodeTarget(_ fields: FieldReader) throws(ToastError) -> ToastTarget {
        let id = try fields.integer("id")
        let reuseID = try fields.string("reuseId")
        let scene = try fields.string("scene")
        switch (id, reuseID) {
        case (let id?, nil):
            if scene != nil {
                throw ToastError(.invalidRequest, "'scene' goes with 'reuseId', not with 'id'", field: "scene")
            }
            return .id(id)
        case (nil, let reuseID?):
            try Toast.checkText(reuseID, field: "reuseId", max: ToastLimits.reuseIDBytes)
            let scene = scene ?? Toast.defaultScene
            try Toast.checkName(scene, field: "scene", max: ToastLimits.sceneBytes)
            return .reuseID(reuseID, scene: scene)
        case (.some, .some):
            throw ToastError(.invalidRequest, "name the toast by 'id' or by 'reuseId', not both", field: "reuseId")
        case (nil, nil):
            throw ToastError(.missingField, "name the toast by 'id' or by 'reuseId'", field: "id")
        }
    }

    static func decodeFilter(_ fields: FieldReader) throws(ToastError) -> EventFilter {
        let scene = try fields.string("scene")
        if let scene { try Toast.checkName(scene, field: "scene", max: ToastLimits.sceneBytes) }
        var roles: Set<ToastRole>?
        if let elements = try fields.array("roles") {
            var set = Set<ToastRole>()
            for (index, element) in elements.enumerated() {
                guard let raw = element.stringValue else {
                    throw ToastError.invalid("roles[\(index)]", "must be a string, not \(element.typeName)")
                }
                set.insert(try FieldReader.enumeration(raw, ToastRole.self, field: "roles[\(index)]"))
            }
            roles = set
        }
        return EventFilter(scene: scene, roles: roles)
    }

    public static func decodeToast(_ value: JSONValue) throws(ToastError) -> Toast {
        let fields = try FieldReader(value, path: "toast.")
        try fields.rejectUnknown(allowed: ToastMember.keys)
        guard fields.has("message") else { throw fields.missing("message") }
        // Absent members keep `Toast.init`'s defaults; present ones are read
        // and checked in the table's order.
        var toast = Toast(message: "")
        for member in ToastMember.allCases {
            if let value = fields.members[member.name] { try toast.decode(member, from: value) }
        }
        try toast.validate()
        return toast
    }

    /// The `toast` member of an update, checked as toastd checks it.
    public static func decodePatch(_ value: JSONValue) throws(ToastError) -> ToastPatch {
        let fields = try FieldReader(value, path: "toast.")
        let notUpdatable = fields.members.keys.filter { ToastMember(named: $0).map { !$0.isPatchable } ?? false }.sorted()
        if let first = notUpdatable.first {
            throw ToastError.invalid(
                "toast." + first,
                "cannot be changed by update; add the toast again to move or re-home it"
            )
        }
        try fields.rejectUnknown(allowed: ToastMember.patchKeys)
        var patch = ToastPatch()
        for member in ToastMember.allCases where member.isPatchable {
            if let value = fields.members[member.name] { try patch.decode(member, from: value) }
        }
        if patch.isEmpty {
            throw ToastError(.invalidRequest, "the update changes nothing; give at least one field", field: "toast")
        }
        return patch
    }

    /// `"short"`, `"long"`, `"longer"`, `"indefinite"`, or a number of seconds.
    public static func decodeDuration(_ value: JSONValue?, field: String) throws(ToastError) -> ToastDuration? {
        switch value {
        case nil:
            return nil
        case .string(let name)?:
            switch name {
            case "short": return .short
            case "long": return .long
            case "longer": return .longer
            case "indefinite": return .indefinite
            default:
                throw ToastError.invalid(
                    field, "unknown duration '\(name)'; expected 'short', 'long', 'longer', 'indefinite' or a number of seconds"
                )
            }
        case let number?:
            guard let seconds = number.doubleValue else {
                throw ToastError.invalid(field, "must be a name or a number of seconds, not \(number.typeName)")
            }
            let duration = ToastDuration.seconds(seconds)
            try duration.validate(field: field)
            return duration
        }
    }

    /// `"none"`, `"indeterminate"`, or a fraction from 0 to 1.
    static func decodeProgress(_ value: JSONValue?, field: String) throws(ToastError) -> ToastProgress? {
        switch value {
        case nil:
            return nil
        case .string("none")?:
            return ToastProgress.none
        case .string("indeterminate")?:
            return .indeterminate
        case .string(let other)?:
            throw ToastError.invalid(field, "unknown progress '\(other)'; expected 'none', 'indeterminate' or a fraction from 0 to 1")
        case let number?:
            guard let fraction = number.doubleValue else {
                throw ToastError.invalid(field, "must be 'none', 'indeterminate' or a number, not \(number.typeName)")
            }
            let progress = ToastProgress.fraction(fraction)
            try progress.validate(field: field)
            return progress
        }
    }

    static func decodeActions(_ elements: [JSONValue]?, field: String) throws(ToastError) -> [ToastAction]? {
        guard let elements else { return nil }
        if elements.count > ToastLimits.maxActions {
            throw ToastError.invalid(field, "at most \(ToastLimits.maxActions) actions are allowed (got \(elements.count))")
        }
        var actions: [ToastAction] = []
        for (index, element) in elements.enumerated() {
            let fields = try FieldReader(element, path: "\(field)[\(index)].")
            try fields.rejectUnknown(allowed: ["id", "label"])
            actions.append(ToastAction(id: try fields.requiredString("id"), label: try fields.requiredString("label")))
        }
        try Toast.checkActions(actions, field: field)
        return actions
    }

    static func decodeInvalidation(_ elements: [JSONValue]?, field: String) throws(ToastError) -> InvalidationOptions {
        var options: InvalidationOptions = []
        for (index, element) in (elements ?? []).enumerated() {
            let path = "\(field)[\(index)]"
            guard let name = element.stringValue else {
                throw ToastError.invalid(path, "must be a string, not \(element.typeName)")
            }
            guard let option = InvalidationOptions.named.first(where: { $0.name == name })?.option else {
                throw ToastError.invalid(path, "unknown option '\(name)'; expected 'contextChanged' or 'presentationDismissed'")
            }
            options.insert(option)
        }
        return options
    }
}
