// SPDX-License-Identifier: Apache-2.0
/// The whole state as one line, written straight to bytes: the reply to
/// `list` and the `snapshot` event a subscriber starts from.
///
/// Both repeat every live toast. Through a `JSONValue` (a dictionary per
/// toast, its keys sorted while writing), a `list` of 60,000 toasts held
/// toastd's event loop for 0.65 to 0.73 s, and every other client waited
/// (docs/BENCHMARKS.md, "Long lines"). The members go out in their
/// canonical (sorted) order by hand, and each toast through `writeToast`.
/// A test checks the bytes against `snapshot(_:instance:)` and
/// `snapshotEvent(_:instance:time:)` serialized.
extension WireEncoder {
    /// The line of `ok(ref:, result: snapshot(snapshot, instance:))`.
    /// `next`: a `list` page's offset of the page after it, when there is one.
    public static func snapshotReplyLine(ref: JSONValue?, _ snapshot: SchedulerSnapshot, instance: String, next: Int? = nil) -> [UInt8] {
        LineWriter.line { out in
            writeSuccessHead(ref: ref, into: &out)
            writeSnapshot(snapshot, instance: instance, eventTime: nil, next: next, into: &out)
            out.bytes("}\n")
        }
    }

    /// The line of `snapshotEvent(snapshot, instance:, time:)`.
    public static func snapshotEventLine(_ snapshot: SchedulerSnapshot, instance: String, time: ToastInstant) -> [UInt8] {
        LineWriter.line { out in
            writeSnapshot(snapshot, instance: instance, eventTime: time, into: &out)
            out.byte(UInt8(ascii: "\n"))
        }
    }

    /// The snapshot's object; with `eventTime`, as the `snapshot` event
    /// (`event`, `seq` and `time` among its members).
    private static func writeSnapshot(
        _ snapshot: SchedulerSnapshot, instance: String, eventTime: ToastInstant?, next: Int? = nil, into out: inout LineWriter
    ) {
        out.byte(UInt8(ascii: "{"))
        var members = LineWriter.Members()
        if eventTime != nil { members.name("event", "snapshot", &out) }
        members.string("instance", instance, &out)
        members.key("modes", &out)
        out.byte(UInt8(ascii: "["))
        for (index, mode) in snapshot.modes.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.string(mode)
        }
        out.byte(UInt8(ascii: "]"))
        if let next { members.integer("next", Int64(next), &out) }
        members.integer("pauseLevel", Int64(snapshot.pauseLevel), &out)
        members.bool("paused", snapshot.paused, &out)
        if eventTime != nil { members.integer("seq", Int64(snapshot.sequence), &out) }
        members.integer("sequence", Int64(snapshot.sequence), &out)
        members.key("stacks", &out)
        out.byte(UInt8(ascii: "["))
        for (index, stack) in snapshot.stacks.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.byte(UInt8(ascii: "{"))
            var stackMembers = LineWriter.Members()
            stackMembers.name("alignment", wireName(stack.key.alignment), &out)
            stackMembers.integer("maxVisible", Int64(stack.maxVisible), &out)
            stackMembers.integer("queued", Int64(stack.queued), &out)
            stackMembers.string("scene", stack.key.scene, &out)
            stackMembers.integer("shown", Int64(stack.shown), &out)
            out.byte(UInt8(ascii: "}"))
        }
        out.byte(UInt8(ascii: "]"))
        if let eventTime { members.integer("time", eventTime, &out) }
        members.key("toasts", &out)
        out.byte(UInt8(ascii: "["))
        for (index, record) in snapshot.toasts.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            writeToast(record, into: &out)
        }
        out.bytes("]}")
    }
}
