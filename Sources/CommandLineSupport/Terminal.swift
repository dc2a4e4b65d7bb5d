import ToastCore

/// Making untrusted toast text safe to print on a terminal.
public enum Terminal {
    /// Replaces every control character (C0, DEL, C1), and every
    /// bidirectional override or isolate, with a visible escape such as
    /// `\u{1B}`, so text can never move the cursor, change colours, set the
    /// window title or reorder what follows it. Newlines and tabs become spaces.
    public static func sanitize(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x09, 0x0D:
                result.unicodeScalars.append(" ")
            case 0x00..<0x20, 0x7F..<0xA0, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One readable line for an event.
    public static func describe(_ event: JSONValue) -> String {
        let name = event["event"]?.stringValue ?? "?"
        let seq = event["seq"]?.intValue.map { "#\($0) " } ?? ""
        guard let toast = event["toast"] else {
            if name == "snapshot", case .array(let toasts)? = event["toasts"] {
                return "\(seq)snapshot: \(toasts.count) toasts" + (event["paused"] == .bool(true) ? ", paused" : "")
            }
            return seq + name + (event["reason"]?.stringValue.map { " (\(sanitize($0)))" } ?? "")
        }
        let id = toast["id"]?.intValue ?? 0
        let role = toast["role"]?.stringValue ?? "plain"
        let title = toast["title"]?.stringValue.map { sanitize($0) + ": " } ?? ""
        let message = sanitize(toast["message"]?.stringValue ?? "")
        var detail = ""
        if let reason = event["reason"]?.stringValue { detail += " (\(reason))" }
        if let action = event["action"]?.stringValue { detail += " [\(sanitize(action))]" }
        if let repeats = toast["repeat"]?.intValue, repeats > 1 { detail += " ×\(repeats)" }
        return "\(seq)\(name) \(id) \(role): \(title)\(message)\(detail)"
    }
}
