// SPDX-License-Identifier: Apache-2.0
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
        let form: ToastMember.Form = stored ? .stored : .full
        out.byte(UInt8(ascii: "{"))
        var members = LineWriter.Members()
        for entry in RecordKey.canonicalOrder {
            switch entry {
            case .toast(let member):
                guard record.toast.writes(member, in: form) else { continue }
                members.key(member.key, &out)
                record.toast.write(member, into: &out)
            case .createdAt:
                members.integer("createdAt", record.createdAt, &out)
            case .expiresAt:
                if let expiresAt = record.expiresAt { members.integer("expiresAt", expiresAt, &out) }
            case .id:
                members.integer("id", Int64(record.id), &out)
            case .presentedAt:
                if let presentedAt = record.presentedAt { members.integer("presentedAt", presentedAt, &out) }
            case .repeatCount:
                if !stored || record.repeatCount != 1 { members.integer("repeat", Int64(record.repeatCount), &out) }
            case .state:
                members.name("state", wireName(record.state), &out)
            }
        }
        if stored { members.integer("placement", Int64(record.placement), &out) }
        out.byte(UInt8(ascii: "}"))
    }

    /// A record's members on the wire: the toast's and the scheduler's own.
    enum RecordKey: Sendable {
        case toast(ToastMember)
        case createdAt, expiresAt, id, presentedAt, repeatCount, state

        var key: StaticString {
            switch self {
            case .toast(let member): member.key
            case .createdAt: "createdAt"
            case .expiresAt: "expiresAt"
            case .id: "id"
            case .presentedAt: "presentedAt"
            case .repeatCount: "repeat"
            case .state: "state"
            }
        }

        /// Every member in canonical order: sorted by their keys' bytes.
        static let canonicalOrder: [RecordKey] = {
            let all = ToastMember.allCases.map(RecordKey.toast) + [.createdAt, .expiresAt, .id, .presentedAt, .repeatCount, .state]
            return all.sorted { lhs, rhs in
                let (left, right) = (lhs.key, rhs.key)
                return UnsafeBufferPointer(start: left.utf8Start, count: left.utf8CodeUnitCount)
                    .lexicographicallyPrecedes(UnsafeBufferPointer(start: right.utf8Start, count: right.utf8CodeUnitCount))
            }
        }()
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
