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
        guard let record = event.record else { return line(Self.event(event)) }
        return LineWriter.line { out in
            out.byte(UInt8(ascii: "{"))
            var members = LineWriter.Members()
            if case .action(_, let actionID) = event.kind {
                members.string("action", actionID, &out)
            }
            members.string("event", event.name, &out)
            switch event.kind {
            case .dismissed(_, let reason):
                members.string("reason", reason.rawValue, &out)
            case .cancelled(_, let reason):
                members.string("reason", reason.rawValue, &out)
            default:
                break
            }
            members.integer("seq", Int64(event.seq), &out)
            members.integer("time", event.time, &out)
            members.key("toast", &out)
            writeToast(record, into: &out)
            out.bytes("}\n")
        }
    }

    /// The line of `reply(ref:, .success(result(reply)))`, written directly
    /// for the replies that carry a toast (add and update).
    public static func replyLine(ref: JSONValue?, _ reply: SchedulerReply) -> [UInt8] {
        let record: ToastRecord
        switch reply {
        case .added(let added, _, _), .updated(let added): record = added
        default: return line(ok(ref: ref, result: result(reply)))
        }
        return LineWriter.line { out in
            writeSuccessHead(ref: ref, into: &out)
            out.byte(UInt8(ascii: "{"))
            var members = LineWriter.Members()
            if case .added(_, let deduped, _) = reply { members.bool("deduped", deduped, &out) }
            members.integer("id", Int64(record.id), &out)
            if case .added(_, _, let replaced?) = reply { members.integer("replaced", Int64(replaced), &out) }
            members.key("toast", &out)
            writeToast(record, into: &out)
            out.bytes("}}\n")
        }
    }

    /// `{"ok":true,"ref":…,"result":`, the start of a success's line up to
    /// its result (whose object the caller writes, then `}` and the newline).
    static func writeSuccessHead(ref: JSONValue?, into out: inout LineWriter) {
        out.bytes(#"{"ok":true,"#)
        if let ref {
            out.bytes(#""ref":"#)
            ref.write(into: &out)
            out.byte(UInt8(ascii: ","))
        }
        out.bytes(#""result":"#)
    }

    /// A record as toastd stores it (a row's body, a journal record's): the
    /// toast as the wire shows it, without the members that hold what
    /// `WireDecoder.decodeRecord` supplies when they are absent (no
    /// actions, `top`, `presentation`, no close button, dismissible, no
    /// invalidation, repeat 1), and with its `placement` as the last
    /// member. `body` gets the bytes where they were written.
    ///
    /// Those seven members were about a third of a typical body's 330
    /// bytes and of the instructions that wrote it, on the commit thread,
    /// for every row (docs/BENCHMARKS.md, section 2, "Stored records
    /// without their defaults"). Rows written in the full form, by earlier
    /// versions, read back the same.
    public static func withStoredRecord<Result>(
        _ record: ToastRecord, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try LineWriter.withLine({ writeToast(record, into: &$0, stored: true) }, body)
    }

    /// The canonical bytes of `toast(record)`: its members in sorted order;
    /// with `stored`, the stored form (`withStoredRecord`).
    static func writeToast(_ record: ToastRecord, into out: inout LineWriter, stored: Bool = false) {
        // Each field read in place (`record.toast.x`): a copy of the toast
        // would retain and release every string in it.
        out.byte(UInt8(ascii: "{"))
        var members = LineWriter.Members()
        if !stored || !record.toast.actions.isEmpty {
            members.key("actions", &out)
            out.byte(UInt8(ascii: "["))
            for (index, action) in record.toast.actions.enumerated() {
                if index > 0 { out.byte(UInt8(ascii: ",")) }
                out.bytes(#"{"id":"#)
                out.string(action.id)
                out.bytes(#","label":"#)
                out.string(action.label)
                out.byte(UInt8(ascii: "}"))
            }
            out.byte(UInt8(ascii: "]"))
        }
        if !stored || record.toast.alignment != .top { members.name("alignment", wireName(record.toast.alignment), &out) }
        if !stored || record.toast.cancellation != .presentation {
            members.name("cancellation", wireName(record.toast.cancellation), &out)
        }
        if !stored || record.toast.closeButton { members.bool("closeButton", record.toast.closeButton, &out) }
        members.integer("createdAt", record.createdAt, &out)
        if !stored || !record.toast.dismissible { members.bool("dismissible", record.toast.dismissible, &out) }
        if let duration = record.toast.duration {
            members.key("duration", &out)
            switch duration {
            case .short: out.bytes(#""short""#)
            case .long: out.bytes(#""long""#)
            case .longer: out.bytes(#""longer""#)
            case .indefinite: out.bytes(#""indefinite""#)
            case .seconds(let seconds): out.number(seconds)
            }
        }
        if let expiresAt = record.expiresAt { members.integer("expiresAt", expiresAt, &out) }
        if let icon = record.toast.icon { members.string("icon", icon, &out) }
        members.integer("id", Int64(record.id), &out)
        if !stored || !record.toast.invalidation.isEmpty {
            members.key("invalidation", &out)
            out.byte(UInt8(ascii: "["))
            var firstName = true
            for (name, option) in InvalidationOptions.named where record.toast.invalidation.contains(option) {
                if !firstName { out.byte(UInt8(ascii: ",")) }
                firstName = false
                out.string(name)
            }
            out.byte(UInt8(ascii: "]"))
        }
        if let level = record.toast.level { members.integer("level", Int64(level), &out) }
        members.string("message", record.toast.message, &out)
        if let presentedAt = record.presentedAt { members.integer("presentedAt", presentedAt, &out) }
        switch record.toast.progress {
        case .none:
            break
        case .indeterminate:
            members.name("progress", "indeterminate", &out)
        case .fraction(let value):
            members.key("progress", &out)
            out.number(value)
        }
        if !stored || record.repeatCount != 1 { members.integer("repeat", Int64(record.repeatCount), &out) }
        if record.toast.resident { members.bool("resident", true, &out) }
        if let reuseID = record.toast.reuseID { members.string("reuseId", reuseID, &out) }
        members.name("role", wireName(record.toast.role), &out)
        members.string("scene", record.toast.scene, &out)
        if let source = record.toast.source { members.string("source", source, &out) }
        members.name("state", wireName(record.state), &out)
        if let title = record.toast.title { members.string("title", title, &out) }
        if record.toast.transient { members.bool("transient", true, &out) }
        if stored { members.integer("placement", Int64(record.placement), &out) }
        out.byte(UInt8(ascii: "}"))
    }

    // MARK: - Names

    // The wire names of a toast's enumerations, as static text for
    // `Members.name`: a `rawValue` went through the escape scan and a
    // closure over its UTF-8, four times a toast. A test holds each to its
    // `rawValue`.

    static func wireName(_ alignment: ToastAlignment) -> StaticString {
        switch alignment {
        case .top: "top"
        case .center: "center"
        case .bottom: "bottom"
        }
    }

    static func wireName(_ cancellation: CancellationPolicy) -> StaticString {
        switch cancellation {
        case .never: "never"
        case .presentation: "presentation"
        case .always: "always"
        }
    }

    static func wireName(_ role: ToastRole) -> StaticString {
        switch role {
        case .plain: "plain"
        case .info: "info"
        case .success: "success"
        case .warning: "warning"
        case .failure: "failure"
        }
    }

    static func wireName(_ state: ToastRecord.State) -> StaticString {
        switch state {
        case .queued: "queued"
        case .shown: "shown"
        }
    }
}
