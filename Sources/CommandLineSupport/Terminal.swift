// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// Making untrusted toast text safe to print on a terminal.
public enum Terminal {
    /// Replaces every control character (C0, DEL, C1), and every
    /// bidirectional override or isolate, with a visible escape such as
    /// `\u{1B}`, so text can never move the cursor, change colours, set the
    /// window title or reorder what follows it. Newlines and tabs become spaces.
    public static func sanitize(_ text: String) -> String {
        // Most text has nothing to replace: it is returned as it is, after
        // one pass over its bytes (toastd's log line for an add ran 20,000
        // instructions here, one scalar at a time, to copy it unchanged).
        guard mayNeedEscaping(text.utf8) else { return text }
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

    /// Whether a byte of `utf8` can begin a scalar that `sanitize`
    /// replaces: a C0 control or DEL, or the lead byte of the two-byte C1
    /// controls (0xC2), of U+061C (0xD8) or of the other bidirectional
    /// marks, overrides and isolates (0xE2). False means nothing to replace;
    /// true may be a false alarm (a "©" or an "→"), which the slow path
    /// sorts out.
    static func mayNeedEscaping(_ utf8: String.UTF8View) -> Bool {
        let answer = utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }
        }
        return answer ?? true
    }

    /// One readable line for a line from toastd, as the wire has it.
    public static func describe(_ value: JSONValue) -> String {
        guard let line = try? WireDecoder.decodeServerLine(value) else { return "?" }
        return describe(line)
    }

    /// One readable line for a line from toastd.
    public static func describe(_ line: ServerLine) -> String {
        switch line {
        case .snapshot(let snapshot):
            return "#\(snapshot.snapshot.sequence) snapshot: \(snapshot.snapshot.toasts.count) toasts" + (snapshot.snapshot.paused ? ", paused" : "")
        case .lagged(let seq, _, let dropped):
            return "#\(seq) lagged (\(dropped) dropped)"
        case .shutdown(let seq, _, let reason):
            return "#\(seq) shutdown (\(sanitize(reason)))"
        case .reply(_, .success):
            return "ok"
        case .reply(_, .failure(let error)):
            return "error \(error.code.rawValue): \(sanitize(error.message))"
        case .unknown(let name):
            return sanitize(name)
        case .event(let event):
            guard let record = event.record else {
                switch event.kind {
                case .paused(let level): return "#\(event.seq) paused (level \(level))"
                case .modes(let modes): return "#\(event.seq) modes: \(sanitize(modes.joined(separator: ", ")))"
                default: return "#\(event.seq) \(event.name)"
                }
            }
            let toast = record.toast
            let title = toast.title.map { sanitize($0) + ": " } ?? ""
            var detail = ""
            switch event.kind {
            case .dismissed(_, let reason): detail += " (\(reason.rawValue))"
            case .cancelled(_, let reason): detail += " (\(reason.rawValue))"
            case .action(_, let action): detail += " [\(sanitize(action))]"
            default: break
            }
            if record.repeatCount > 1 { detail += " ×\(record.repeatCount)" }
            return "#\(event.seq) \(event.name) \(record.id) \(toast.role.rawValue): \(title)\(sanitize(toast.message))\(detail)"
        }
    }
}
