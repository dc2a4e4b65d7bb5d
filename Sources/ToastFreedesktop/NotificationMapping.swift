import ToastCore

/// How an `org.freedesktop.Notifications` call (spec 1.2) becomes a toast,
/// and how a toast's end becomes a `NotificationClosed` reason. Pure: the
/// bus code reads the message into a `Notification`, asks this for the
/// request, and writes the answer back.
///
/// The choices (PROTOCOL.md, "The freedesktop bridge", has the table):
/// - `app_name` is the source; `summary` the title and `body` the message,
///   or `summary` the message when the body is empty. Markup is stripped to
///   plain text (toastd does not advertise `body-markup`).
/// - urgency low → `plain`, normal → `info`, critical → `failure`, and a
///   critical notification never expires by itself, whatever it asks.
/// - `expire_timeout` -1 is `longer` (5 s), 0 indefinite, else ms as
///   seconds clamped into 0.1 s ... 24 h.
/// - `x-dunst-stack-tag` and `x-canonical-private-synchronous` become a
///   reuse id scoped to the app, as dunst matches them.
/// - `value` (0 to 100) is a progress bar.
/// - Actions: at most 3 fit a toast; `default` is kept first when present,
///   then the others in order, and the rest are dropped. Keys that are not
///   toast action ids are given one (`a1`, `a2`, ...); the bridge remembers
///   the original key for `ActionInvoked`.
/// - Text longer than a toast allows is cut at a character boundary with "…".
public struct Notification: Sendable, Hashable {
    public var appName: String
    public var replacesID: UInt32
    public var appIcon: String
    public var summary: String
    public var body: String
    /// Flat `[key, label, key, label, ...]`.
    public var actions: [String]
    public var hints: Hints
    public var expireTimeout: Int32

    public struct Hints: Sendable, Hashable {
        public var urgency: UInt8?
        public var value: Int32?
        public var stackTag: String?
        public var category: String?
        public var imagePath: String?
        public var transient = false
        public var resident = false

        public init() {}
    }

    public init(
        appName: String = "", replacesID: UInt32 = 0, appIcon: String = "", summary: String, body: String = "",
        actions: [String] = [], hints: Hints = Hints(), expireTimeout: Int32 = -1
    ) {
        self.appName = appName
        self.replacesID = replacesID
        self.appIcon = appIcon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
    }
}

public enum NotificationMapping {
    /// The capabilities toastd advertises.
    public static let capabilities = ["actions", "body", "persistence", "icon-static"]

    /// A toast action id for each kept action key, and the key it stands for.
    public struct ActionKeys: Sendable, Hashable {
        public var toKey: [String: String] = [:]
    }

    /// The toast for a Notify call, and how its action ids map back to keys.
    public static func toast(for notification: Notification, source fallback: String) -> (Toast, ActionKeys) {
        let summary = plainText(notification.summary)
        let body = plainText(notification.body)
        var toast: Toast
        if body.isBlank {
            let text = summary.isBlank ? notification.appName : summary
            toast = Toast(message: clip(text.isEmpty ? "(no text)" : text, bytes: ToastLimits.messageBytes))
        } else {
            toast = Toast(message: clip(body, bytes: ToastLimits.messageBytes))
            if !summary.isBlank {
                toast.title = clip(summary, bytes: ToastLimits.titleBytes)
            }
        }
        let app = notification.appName.isBlank ? fallback : notification.appName
        toast.source = clip(app, bytes: ToastLimits.sourceBytes)
        let icon = notification.appIcon
        if !icon.isBlank, icon.utf8.count <= ToastLimits.iconBytes {
            toast.icon = icon
        }
        let urgency = notification.hints.urgency ?? 1
        toast.role = urgency == 0 ? .plain : urgency >= 2 ? .failure : .info
        toast.duration = duration(timeout: notification.expireTimeout, critical: urgency >= 2)
        if let value = notification.hints.value {
            toast.progress = .fraction(Double(min(100, max(0, value))) / 100)
        }
        if let tag = notification.hints.stackTag, !tag.isEmpty {
            toast.reuseID = clip("\(toast.source ?? ""):\(tag)", bytes: ToastLimits.reuseIDBytes)
        }
        let (actions, keys) = self.actions(notification.actions)
        toast.actions = actions
        toast.resident = notification.hints.resident
        toast.transient = notification.hints.transient
        return (toast, keys)
    }

    /// The members of an update for `replaces_id` of a live toast: what
    /// `update` may change (its source, scene and policies stay).
    public static func patch(for toast: Toast) -> ToastPatch {
        ToastPatch(
            message: toast.message, title: .some(toast.title), icon: .some(toast.icon), role: toast.role,
            duration: .some(toast.duration), progress: toast.progress, actions: toast.actions
        )
    }

    static func duration(timeout: Int32, critical: Bool) -> ToastDuration {
        if critical || timeout == 0 { return .indefinite }
        if timeout < 0 { return .longer }
        return .seconds(min(ToastLimits.maxSeconds, max(ToastLimits.minSeconds, Double(timeout) / 1000)))
    }

    static func actions(_ flat: [String]) -> ([ToastAction], ActionKeys) {
        var pairs: [(key: String, label: String)] = []
        var index = 0
        while index + 1 < flat.count {
            pairs.append((flat[index], flat[index + 1]))
            index += 2
        }
        // "default" first, then the rest in order, at most three.
        let ordered = pairs.filter { $0.key == "default" } + pairs.filter { $0.key != "default" }
        var actions: [ToastAction] = []
        var keys = ActionKeys()
        for (position, pair) in ordered.prefix(ToastLimits.maxActions).enumerated() {
            let id = isActionID(pair.key) && keys.toKey[pair.key] == nil ? pair.key : "a\(position + 1)"
            let label = plainText(pair.label)
            actions.append(
                ToastAction(id: id, label: clip(label.isBlank ? pair.key : label, bytes: ToastLimits.actionLabelBytes))
            )
            keys.toKey[id] = pair.key
        }
        // A label that is still empty (an empty key too) would break the toast's rules.
        actions = actions.map { action in
            var action = action
            if action.label.isBlank { action.label = action.id }
            return action
        }
        return (actions, keys)
    }

    static func isActionID(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= ToastLimits.actionIDBytes
            && key.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }

    /// Markup (`<b>`, `<a href>`, `<img>`) stripped to its text, entities decoded.
    public static func plainText(_ markup: String) -> String {
        var out = ""
        var inTag = false
        var entity: String?
        for character in markup {
            if inTag {
                if character == ">" { inTag = false }
                continue
            }
            if var pending = entity {
                if character == ";" {
                    out += decode(entity: pending)
                    entity = nil
                } else if pending.count < 8 && (character.isLetter || character.isNumber || character == "#") {
                    pending.append(character)
                    entity = pending
                } else {
                    out += "&" + pending
                    entity = nil
                    if character == "<" { inTag = true } else if character == "&" { entity = "" } else { out.append(character) }
                }
                continue
            }
            switch character {
            case "<": inTag = true
            case "&": entity = ""
            default: out.append(character)
            }
        }
        if let entity { out += "&" + entity }
        return out
    }

    static func decode(entity: String) -> String {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let digits = entity.dropFirst()
            let value = digits.first == "x" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            if entity.hasPrefix("#"), let value, let scalar = Unicode.Scalar(value) { return String(Character(scalar)) }
            return "&" + entity + ";"
        }
    }

    /// At most `bytes` bytes of UTF-8, cut at a character boundary, with "…" when cut.
    public static func clip(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var out = ""
        var used = 0
        let budget = bytes - "…".utf8.count
        for character in text {
            let size = character.utf8.count
            if used + size > budget { break }
            out.append(character)
            used += size
        }
        return out + "…"
    }

    /// `image-data` (iiibiiay): refused unless its geometry adds up, so a
    /// malformed image can never be read past its end.
    public static func validateImage(
        width: Int32, height: Int32, rowstride: Int32, hasAlpha: Bool, bitsPerSample: Int32, channels: Int32, bytes: Int
    ) -> String? {
        guard width > 0, height > 0, width <= 4096, height <= 4096 else { return "image-data: width and height must be 1 to 4096" }
        guard bitsPerSample == 8 else { return "image-data: bits_per_sample must be 8" }
        guard channels == (hasAlpha ? 4 : 3) else { return "image-data: channels must be 3, or 4 with alpha" }
        let row = Int(width) * Int(channels)
        guard Int(rowstride) >= row else { return "image-data: rowstride is shorter than a row" }
        let needed = Int(rowstride) * (Int(height) - 1) + row
        guard bytes >= needed, bytes <= Int(rowstride) * Int(height) else {
            return "image-data: \(bytes) bytes of data do not match \(width)×\(height) with rowstride \(rowstride)"
        }
        return nil
    }

    /// The spec's reason for a toast's end: 1 expired, 2 dismissed by the
    /// user, 3 closed by a call (CloseNotification, `toastctl remove`),
    /// 4 undefined (replaced, invalidated or superseded by its source, its
    /// source ended, dropped by a rule). Nil for an event that is no end.
    public static func closeReason(for event: ToastEvent.Kind) -> UInt32? {
        switch event {
        case .dismissed(_, let reason):
            switch reason {
            case .expired: 1
            case .user, .action, .cleared: 2
            case .removed: 3
            case .invalidated, .replaced: 4
            }
        case .cancelled(_, let reason):
            switch reason {
            case .removed: 3
            case .user, .action, .cleared: 2
            case .superseded, .invalidated, .sourceEnded, .replaced, .dropped: 4
            }
        case .queued, .presented, .updated, .action, .paused, .resumed, .modes:
            nil
        }
    }
}
