// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// How an `org.freedesktop.Notifications` call (spec 1.2) becomes a toast,
/// and how a toast's end becomes a `NotificationClosed` reason. Pure: the
/// bus code reads the message into a `Notification`, asks this for the
/// request, and writes the answer back.
///
/// The choices (PROTOCOL.md section 9 has the table):
/// - `app_name` is the source; `summary` the title and `body` the message,
///   or `summary` the message when the body is empty. The body's markup is
///   kept, cleaned to the spec's tags (`markup`), and its plain text is the
///   message: only those tags are removed and entities decoded, so a `<`
///   that starts no tag stays.
/// - urgency low → `plain`, normal → `info`, critical → `failure` (the
///   urgency is kept too), and a critical notification never expires by
///   itself, whatever it asks.
/// - `expire_timeout` -1 is `longer` (5 s), 0 indefinite, else ms as
///   seconds clamped into 0.1 s ... 24 h.
/// - Every Notify without `replaces_id` is a notification of its own (the
///   toast does not dedupe by text); the stack tags (`x-dunst-stack-tag`,
///   `x-canonical-private-synchronous`, `synchronous`,
///   `private-synchronous`) become a reuse id scoped to the sender, as
///   dunst and mako match them.
/// - `value` (0 to 100) is a progress bar.
/// - Actions: every pair, up to `ToastLimits.maxActions`, in order; keys
///   that are not toast action ids are given one (`a1`, `a2`, ...), and the
///   bridge remembers the original key for `ActionInvoked`. `default` keeps
///   its key: it is the click on the body, never a button.
/// - `image-data` (scaled to 64 px), `image-path` and a path or `file://`
///   `app_icon` are the image; an icon name is the icon. A malformed image,
///   or a hint of the wrong type, is dropped and named in `problems`; the
///   notification is kept.
/// - `category`, `desktop-entry`, `sound-name` and the urgency are kept as
///   toast members, for the rules.
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
    /// What was wrong and left out (a malformed image, a hint of the wrong type).
    public var problems: [String] = []

    public struct Hints: Sendable, Hashable {
        public var urgency: UInt8?
        public var value: Int32?
        public var stackTag: String?
        public var category: String?
        public var desktopEntry: String?
        public var soundName: String?
        public var imagePath: String?
        /// `image-data`, already scaled down.
        public var image: ToastImage?
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
    /// The capabilities toastd advertises: exactly what it does. The body
    /// is read as markup (its plain text for every viewer, its markup for
    /// toast-overlay, which draws `b`, `i` and `u`); links are drawn but
    /// cannot be followed and images are their `alt` text, so
    /// `body-hyperlinks` and `body-images` are not advertised.
    public static let capabilities = [
        "actions", "body", "body-markup", "icon-static", "persistence",
        "x-dunst-stack-tag", "x-canonical-private-synchronous", "synchronous", "private-synchronous",
    ]

    /// A toast action id for each kept action key, and the key it stands for.
    public struct ActionKeys: Sendable, Hashable {
        public var toKey: [String: String] = [:]
    }

    /// The toast for a Notify call, and how its action ids map back to keys.
    /// `owner` scopes a stack tag: the app, or the connection of a call that
    /// names none. `source`: what a call without an app name is from.
    public static func toast(for notification: Notification, owner: String, source fallback: String) -> (Toast, ActionKeys) {
        // What could ever be shown, before any parsing: a 1 MB body costs
        // no more than a 16 KiB one.
        let rawSummary = head(notification.summary, bytes: 4 * ToastLimits.titleBytes)
        let rawBody = head(notification.body, bytes: 4 * ToastLimits.messageBytes)
        let summary = plainText(rawSummary)
        let body = plainText(rawBody)
        var toast: Toast
        if body.isBlank {
            let text = summary.isBlank ? notification.appName : summary
            toast = Toast(message: clip(text.isBlank ? "(no text)" : text, bytes: ToastLimits.messageBytes))
        } else {
            toast = Toast(message: clip(body, bytes: ToastLimits.messageBytes))
            if !summary.isBlank {
                toast.title = clip(summary, bytes: ToastLimits.titleBytes)
            }
            if let markup = cleanMarkup(rawBody), markup.utf8.count <= ToastLimits.markupBytes, !markup.isBlank {
                toast.markup = markup
            }
        }
        toast.dedupe = false
        let app = notification.appName.isBlank ? fallback : notification.appName
        toast.source = clip(app, bytes: ToastLimits.sourceBytes)
        let (icon, iconImage) = iconAndImage(notification.appIcon)
        toast.icon = icon
        toast.image = notification.hints.image ?? notification.hints.imagePath.flatMap { path in
            let (name, image) = iconAndImage(path)
            if toast.icon == nil { toast.icon = name }
            return image
        } ?? iconImage
        let urgency = notification.hints.urgency ?? 1
        toast.urgency = ToastUrgency(level: urgency)
        toast.role = urgency == 0 ? .plain : urgency >= 2 ? .failure : .info
        toast.duration = duration(timeout: notification.expireTimeout, critical: urgency >= 2)
        if let value = notification.hints.value {
            toast.progress = .fraction(Double(min(100, max(0, value))) / 100)
        }
        if let tag = notification.hints.stackTag, !tag.isEmpty {
            toast.reuseID = clip("\(owner):\(tag)", bytes: ToastLimits.reuseIDBytes)
        }
        toast.category = kept(notification.hints.category, bytes: ToastLimits.categoryBytes)
        toast.desktopEntry = kept(notification.hints.desktopEntry, bytes: ToastLimits.desktopEntryBytes)
        toast.soundName = kept(notification.hints.soundName, bytes: ToastLimits.soundNameBytes)
        let (actions, keys) = self.actions(notification.actions)
        toast.actions = actions
        toast.resident = notification.hints.resident
        toast.transient = notification.hints.transient
        return (toast, keys)
    }

    /// A text hint as a toast member: nil when blank or too long to mean anything.
    static func kept(_ value: String?, bytes: Int) -> String? {
        guard let value, !value.isBlank, value.utf8.count <= bytes else { return nil }
        return value
    }

    /// `app_icon` or `image-path`: an icon name (for the icon theme) or an
    /// image file (a path or a `file://` URI).
    static func iconAndImage(_ value: String) -> (icon: String?, image: ToastImage?) {
        guard !value.isBlank else { return (nil, nil) }
        if value.hasPrefix("/") || value.hasPrefix("file://") {
            let image = ToastImage.path(value)
            return (nil, image.problem == nil ? image : nil)
        }
        return (value.utf8.count <= ToastLimits.iconBytes ? value : nil, nil)
    }

    /// The members of an update for `replaces_id` of a live toast: what
    /// `update` may change (its source, scene and policies stay).
    public static func patch(for toast: Toast) -> ToastPatch {
        var patch = ToastPatch(
            message: toast.message, title: .some(toast.title), icon: .some(toast.icon), role: toast.role,
            duration: .some(toast.duration), progress: toast.progress, actions: toast.actions
        )
        patch.markup = .some(toast.markup)
        patch.image = .some(toast.image)
        patch.category = .some(toast.category)
        patch.desktopEntry = .some(toast.desktopEntry)
        patch.urgency = .some(toast.urgency)
        patch.soundName = .some(toast.soundName)
        return patch
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
        var actions: [ToastAction] = []
        var keys = ActionKeys()
        for (position, pair) in pairs.prefix(ToastLimits.maxActions).enumerated() {
            let id = isActionID(pair.key) && keys.toKey[pair.key] == nil ? pair.key : "a\(position + 1)"
            let label = plainText(pair.label)
            // `default` (the body's click) often comes with an empty label
            // (GNotification, desktop-notifier): it is never drawn as a button.
            let shown = label.isBlank ? (pair.key.isBlank ? id : pair.key) : label
            actions.append(ToastAction(id: id, label: clip(shown, bytes: ToastLimits.actionLabelBytes)))
            keys.toKey[id] = pair.key
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

    /// The plain text of a freedesktop body: the spec's tags (`b`, `i`,
    /// `u`, `a`, `img`; an image stands for its `alt`) removed and entities
    /// decoded. Anything else is text: `I <3 toasts; load < 50%` stays whole.
    public static func plainText(_ body: String) -> String {
        var out = ""
        for token in BodyMarkup.tokens(body) {
            switch token {
            case .text(let text): out += text
            case .open(_, _, let alt): out += alt ?? ""
            case .close: break
            }
        }
        return out
    }

    /// The body as markup for viewers that draw it: the spec's tags kept
    /// (`a` with its `href` only, an `img` as its `alt` text), every tag
    /// closed, text escaped. Nil when the body has no tag (the plain text
    /// says it all).
    public static func cleanMarkup(_ body: String) -> String? {
        var out = ""
        var open: [String] = []
        var sawTag = false
        for token in BodyMarkup.tokens(body) {
            switch token {
            case .text(let text):
                out += escape(text)
            case .open(let name, let href, let alt):
                sawTag = true
                if name == "img" {
                    out += escape(alt ?? "")
                } else if name == "a" {
                    out += href.map { "<a href=\"\(escape($0))\">" } ?? "<a>"
                    open.append(name)
                } else {
                    out += "<\(name)>"
                    open.append(name)
                }
            case .close(let name):
                sawTag = true
                guard let index = open.lastIndex(of: name) else { continue }
                for closing in open[index...].reversed() { out += "</\(closing)>" }
                open.removeSubrange(index...)
            }
        }
        for closing in open.reversed() { out += "</\(closing)>" }
        return sawTag ? out : nil
    }

    /// Text as markup: `&`, `<`, `>`, quotes escaped (toast-notify sends plain
    /// text this way to a server that reads markup).
    public static func escape(_ text: String) -> String { BodyMarkup.escape(text) }

    /// At most `bytes` bytes of UTF-8, cut at a character boundary, with "…"
    /// when cut: the head of a text before it is parsed.
    static func head(_ text: String, bytes: Int) -> String {
        text.utf8.count > bytes ? clip(text, bytes: bytes) : text
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

    /// `image-data` (iiibiiay): a problem unless its geometry adds up, so
    /// a malformed image can never be read past its end.
    public static func validateImage(
        width: Int32, height: Int32, rowstride: Int32, hasAlpha: Bool, bitsPerSample: Int32, channels: Int32, bytes: Int
    ) -> String? {
        guard width > 0, height > 0, width <= 4096, height <= 4096 else { return "image-data: width and height must be 1 to 4096" }
        guard bitsPerSample == 8 else { return "image-data: bits_per_sample must be 8" }
        guard channels == (hasAlpha ? 4 : 3) else { return "image-data: channels must be 3, or 4 with alpha" }
        let row = Int(width) * Int(channels)
        guard Int(rowstride) >= row, Int(rowstride) <= row + 64 else { return "image-data: rowstride must be a row, plus at most 64 bytes of padding" }
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
