// SPDX-License-Identifier: Apache-2.0
/// Turns replies, events and toasts into their wire form. Output is
/// canonical (see `JSONValue.serialized`), so equal values give equal bytes.
public enum WireEncoder {
    // MARK: - Lines

    /// A serialized line, newline included.
    public static func line(_ value: JSONValue) -> [UInt8] {
        LineWriter.line { out in
            value.write(into: &out)
            out.byte(UInt8(ascii: "\n"))
        }
    }

    public static func ok(ref: JSONValue?, result: JSONValue) -> JSONValue {
        var members: JSONObject = ["ok": true, "result": result]
        if let ref { members["ref"] = ref }
        return .object(members)
    }

    public static func failure(ref: JSONValue?, error: ToastError) -> JSONValue {
        var detail: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        if let field = error.field { detail["field"] = .string(field) }
        var members: JSONObject = ["ok": false, "error": .object(detail)]
        if let ref { members["ref"] = ref }
        return .object(members)
    }

    /// `failure(ref:error:)`'s line, written straight to bytes (a test
    /// holds the two to the same bytes).
    public static func failureLine(ref: JSONValue?, error: ToastError) -> [UInt8] {
        LineWriter.line { out in
            out.byte(UInt8(ascii: "{"))
            var members = LineWriter.Members()
            members.key("error", &out)
            out.byte(UInt8(ascii: "{"))
            var detail = LineWriter.Members()
            detail.string("code", error.code.rawValue, &out)
            if let field = error.field { detail.string("field", field, &out) }
            detail.string("message", error.message, &out)
            out.byte(UInt8(ascii: "}"))
            members.bool("ok", false, &out)
            if let ref {
                members.key("ref", &out)
                ref.write(into: &out)
            }
            out.bytes("}\n")
        }
    }

    public static func reply(ref: JSONValue?, _ result: Result<JSONValue, ToastError>) -> JSONValue {
        switch result {
        case .success(let value): ok(ref: ref, result: value)
        case .failure(let error): failure(ref: ref, error: error)
        }
    }

    // MARK: - Results

    public static func result(_ reply: SchedulerReply) -> JSONValue {
        switch reply {
        case .added(let record, let deduped, let replaced):
            var members: JSONObject = [
                "id": .int(Int64(record.id)), "deduped": .bool(deduped), "toast": toast(record),
            ]
            if let replaced { members["replaced"] = .int(Int64(replaced)) }
            return .object(members)
        case .updated(let record):
            return ["id": .int(Int64(record.id)), "toast": toast(record)]
        case .dropped(let record):
            return ["id": .int(Int64(record.id)), "deduped": false, "dropped": true, "toast": toast(record)]
        case .ended(let record), .invoked(let record):
            return ["id": .int(Int64(record.id))]
        case .cleared(let count, let kept):
            return ["cleared": .int(Int64(count)), "kept": .int(Int64(kept))]
        case .paused(let level):
            return ["paused": .bool(level > 0), "level": .int(Int64(level))]
        case .modes(let modes):
            return ["modes": .array(modes.map { .string($0) })]
        case .sourceEnded(let cancelled, let dismissed):
            return ["cancelled": .int(Int64(cancelled)), "dismissed": .int(Int64(dismissed))]
        case .ticked(let expired):
            return ["expired": .int(Int64(expired))]
        }
    }

    public static func hello(instance: String) -> JSONValue {
        [
            "protocol": .int(Int64(ProtocolInfo.version)),
            "version": .string(ProtocolInfo.revision),
            "instance": .string(instance),
            "server": .string(ProtocolInfo.server),
            "capabilities": .array(ProtocolInfo.capabilities.map { .string($0) }),
            "limits": ToastLimits.asJSON,
        ]
    }

    /// One entry of the `history` result.
    public static func historyEntry(_ entry: ToastHistory.Entry) -> JSONValue {
        [
            "toast": toast(entry.record),
            "event": .string(entry.shown ? "dismissed" : "cancelled"),
            "reason": .string(entry.reason),
            "endedAt": .int(entry.endedAt),
            "seq": .int(Int64(entry.seq)),
        ]
    }

    public static func snapshot(_ snapshot: SchedulerSnapshot, instance: String, next: Int? = nil) -> JSONValue {
        var members: JSONObject = [
            "instance": .string(instance),
            "paused": .bool(snapshot.paused),
            "pauseLevel": .int(Int64(snapshot.pauseLevel)),
            "modes": .array(snapshot.modes.map { .string($0) }),
            "sequence": .int(Int64(snapshot.sequence)),
            "stacks": .array(
                snapshot.stacks.map { stack in
                    [
                        "scene": .string(stack.key.scene),
                        "alignment": .string(stack.key.alignment.rawValue),
                        "shown": .int(Int64(stack.shown)),
                        "queued": .int(Int64(stack.queued)),
                        "maxVisible": .int(Int64(stack.maxVisible)),
                    ]
                }
            ),
            "toasts": .array(snapshot.toasts.map(toast)),
        ]
        if let next { members["next"] = .int(Int64(next)) }
        return .object(members)
    }

    // MARK: - Events

    public static func event(_ event: ToastEvent) -> JSONValue {
        var members: JSONObject = [
            "event": .string(event.name),
            "seq": .int(Int64(event.seq)),
            "time": .int(event.time),
        ]
        switch event.kind {
        case .queued(let record), .presented(let record), .updated(let record):
            members["toast"] = toast(record)
        case .dismissed(let record, let reason):
            members["toast"] = toast(record)
            members["reason"] = .string(reason.rawValue)
        case .cancelled(let record, let reason):
            members["toast"] = toast(record)
            members["reason"] = .string(reason.rawValue)
        case .action(let record, let actionID):
            members["toast"] = toast(record)
            members["action"] = .string(actionID)
        case .paused(let level):
            members["level"] = .int(Int64(level))
        case .modes(let modes):
            members["modes"] = .array(modes.map { .string($0) })
        case .resumed:
            break
        }
        return .object(members)
    }

    /// The `snapshot` event a new subscriber receives first.
    /// `lagged` (section 6.5): a subscriber missed `dropped` events that the
    /// backlog no longer holds; a snapshot follows.
    public static func laggedNotice(seq: UInt64, time: ToastInstant, dropped: Int) -> JSONValue {
        ["event": "lagged", "seq": .int(Int64(seq)), "time": .int(time), "dropped": .int(Int64(dropped))]
    }

    /// `shutdown` (section 6.6): toastd is stopping; the connection closes next.
    public static func shutdownNotice(seq: UInt64, time: ToastInstant, reason: String) -> JSONValue {
        ["event": "shutdown", "seq": .int(Int64(seq)), "time": .int(time), "reason": .string(reason)]
    }

    public static func snapshotEvent(_ snapshot: SchedulerSnapshot, instance: String, time: ToastInstant) -> JSONValue {
        guard case .object(var members) = Self.snapshot(snapshot, instance: instance) else { preconditionFailure() }
        members["event"] = "snapshot"
        members["seq"] = .int(Int64(snapshot.sequence))
        members["time"] = .int(time)
        return .object(members)
    }

    // MARK: - Toasts

    public static func toast(_ record: ToastRecord) -> JSONValue {
        let toast = record.toast
        var members: JSONObject = [
            "id": .int(Int64(record.id)),
            "state": .string(record.state.rawValue),
            "repeat": .int(Int64(record.repeatCount)),
            "createdAt": .int(record.createdAt),
        ]
        if let presentedAt = record.presentedAt { members["presentedAt"] = .int(presentedAt) }
        if let expiresAt = record.expiresAt { members["expiresAt"] = .int(expiresAt) }
        for member in ToastMember.allCases where toast.writes(member, in: .full) {
            members[member.name] = toast.jsonValue(of: member)
        }
        return .object(members)
    }

    static func duration(_ duration: ToastDuration) -> JSONValue {
        switch duration {
        case .short: "short"
        case .long: "long"
        case .longer: "longer"
        case .indefinite: "indefinite"
        case .seconds(let seconds): .double(seconds)
        }
    }
}
