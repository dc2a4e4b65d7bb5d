/// Event lines written straight to bytes, without building a `JSONValue`.
///
/// Every event carries a whole toast, and toastd encodes each event once
/// per publish: building a dictionary of twenty members, hashing their keys
/// and sorting them was the largest single cost of an add in the ingest
/// profile (docs/BENCHMARKS.md). These writers put the members out in their
/// canonical (sorted) order by hand. A test checks, for random toasts and
/// events, that the bytes are exactly `WireEncoder.event(_:).serialized`.
extension WireEncoder {
    /// An event's line, newline included.
    public static func eventLine(_ event: ToastEvent) -> [UInt8] {
        // Events about no toast are rare: the general encoder does.
        guard event.record != nil else { return line(Self.event(event)) }
        var out: [UInt8] = []
        out.reserveCapacity(384)
        out.append(UInt8(ascii: "{"))
        var keys = KeyWriter()
        if case .action(_, let actionID) = event.kind {
            keys.string("action", actionID, into: &out)
        }
        keys.string("event", event.name, into: &out)
        switch event.kind {
        case .dismissed(_, let reason):
            keys.string("reason", reason.rawValue, into: &out)
        case .cancelled(_, let reason):
            keys.string("reason", reason.rawValue, into: &out)
        default:
            break
        }
        keys.integer("seq", Int64(event.seq), into: &out)
        keys.integer("time", event.time, into: &out)
        if let record = event.record {
            keys.next("toast", into: &out)
            writeToast(record, into: &out)
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// The line of `reply(ref:, .success(result(reply)))`, written directly
    /// for the replies that carry a toast (add and update).
    public static func replyLine(ref: JSONValue?, _ reply: SchedulerReply) -> [UInt8] {
        let record: ToastRecord
        switch reply {
        case .added(let added, _, _), .updated(let added): record = added
        default: return line(ok(ref: ref, result: result(reply)))
        }
        var out: [UInt8] = []
        out.reserveCapacity(384)
        out.append(contentsOf: #"{"ok":true,"#.utf8)
        if let ref {
            out.append(contentsOf: #""ref":"#.utf8)
            ref.write(into: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""result":{"#.utf8)
        var keys = KeyWriter()
        if case .added(_, let deduped, _) = reply { keys.bool("deduped", deduped, into: &out) }
        keys.integer("id", Int64(record.id), into: &out)
        if case .added(_, _, let replaced?) = reply { keys.integer("replaced", Int64(replaced), into: &out) }
        keys.next("toast", into: &out)
        writeToast(record, into: &out)
        out.append(contentsOf: "}}\n".utf8)
        return out
    }

    /// The canonical bytes of `toast(record)`.
    public static func writeToast(_ record: ToastRecord, into out: inout [UInt8]) {
        let toast = record.toast
        out.append(UInt8(ascii: "{"))
        var keys = KeyWriter()
        keys.next("actions", into: &out)
        out.append(UInt8(ascii: "["))
        for (index, action) in toast.actions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"id":"#.utf8)
            JSONValue.writeString(action.id, into: &out)
            out.append(contentsOf: #","label":"#.utf8)
            JSONValue.writeString(action.label, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        keys.string("alignment", toast.alignment.rawValue, into: &out)
        keys.string("cancellation", toast.cancellation.rawValue, into: &out)
        keys.bool("closeButton", toast.closeButton, into: &out)
        keys.integer("createdAt", record.createdAt, into: &out)
        keys.bool("dismissible", toast.dismissible, into: &out)
        if let duration = toast.duration {
            keys.next("duration", into: &out)
            Self.duration(duration).write(into: &out)
        }
        if let expiresAt = record.expiresAt { keys.integer("expiresAt", expiresAt, into: &out) }
        if let icon = toast.icon { keys.string("icon", icon, into: &out) }
        keys.integer("id", Int64(record.id), into: &out)
        keys.next("invalidation", into: &out)
        out.append(UInt8(ascii: "["))
        for (index, name) in toast.invalidation.names.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(name, into: &out)
        }
        out.append(UInt8(ascii: "]"))
        if let level = toast.level { keys.integer("level", Int64(level), into: &out) }
        keys.string("message", toast.message, into: &out)
        if let presentedAt = record.presentedAt { keys.integer("presentedAt", presentedAt, into: &out) }
        switch toast.progress {
        case .none:
            break
        case .indeterminate:
            keys.string("progress", "indeterminate", into: &out)
        case .fraction(let value):
            keys.next("progress", into: &out)
            JSONValue.writeNumber(value, into: &out)
        }
        keys.integer("repeat", Int64(record.repeatCount), into: &out)
        if toast.resident { keys.bool("resident", true, into: &out) }
        if let reuseID = toast.reuseID { keys.string("reuseId", reuseID, into: &out) }
        keys.string("role", toast.role.rawValue, into: &out)
        keys.string("scene", toast.scene, into: &out)
        if let source = toast.source { keys.string("source", source, into: &out) }
        keys.string("state", record.state.rawValue, into: &out)
        if let title = toast.title { keys.string("title", title, into: &out) }
        if toast.transient { keys.bool("transient", true, into: &out) }
        out.append(UInt8(ascii: "}"))
    }

    /// Decimal digits, written straight into `out` (no `String` between).
    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // Int64's magnitude has at most 19 digits; fill them from the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes the separator and the key of each member in turn; the caller
    /// gives the keys in sorted order and writes each value after its key.
    struct KeyWriter {
        private var first = true

        mutating func next(_ key: StaticString, into out: inout [UInt8]) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            key.withUTF8Buffer { out.append(contentsOf: $0) }
            // Two appends, not a String's UTF-8 view: the view took the
            // generic sequence path (a third of this function's profile).
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }

        mutating func string(_ key: StaticString, _ value: String, into out: inout [UInt8]) {
            next(key, into: &out)
            JSONValue.writeString(value, into: &out)
        }

        mutating func integer(_ key: StaticString, _ value: Int64, into out: inout [UInt8]) {
            next(key, into: &out)
            WireEncoder.writeInteger(value, into: &out)
        }

        mutating func bool(_ key: StaticString, _ value: Bool, into out: inout [UInt8]) {
            next(key, into: &out)
            let literal: StaticString = value ? "true" : "false"
            literal.withUTF8Buffer { out.append(contentsOf: $0) }
        }
    }
}
