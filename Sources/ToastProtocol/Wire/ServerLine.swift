// SPDX-License-Identifier: Apache-2.0
/// Every line the daemon writes to a client, decoded once, here: a reply,
/// a scheduler event, or a notice to one connection (`snapshot`, `lagged`,
/// `shutdown`). Clients switch on it and read no member by its key
/// (postgres-nio's way: the wire is known in one place).
public enum ServerLine: Sendable, Hashable {
    /// A reply: its `ref`, and its result or its error.
    case reply(ref: JSONValue?, Result<JSONValue, ToastError>)
    case event(ToastEvent)
    /// The live state (6.2): after `subscribe`, and after `lagged`.
    case snapshot(ServerSnapshot)
    /// The subscriber fell too far behind (6.5): `dropped` events of the
    /// gap are lost; a snapshot follows.
    case lagged(seq: UInt64, time: ToastInstant, dropped: Int)
    /// The daemon is stopping; the connection closes next.
    case shutdown(seq: UInt64, time: ToastInstant, reason: String)
    /// An event kind this version does not know (a newer daemon's): skipped.
    case unknown(event: String)
}

extension ServerLine {
    /// The daemon's clock when it wrote the line (events and notices).
    public var time: ToastInstant? {
        switch self {
        case .event(let event): event.time
        case .snapshot(let snapshot): snapshot.time
        case .lagged(_, let time, _), .shutdown(_, let time, _): time
        case .reply, .unknown: nil
        }
    }
}

/// A snapshot as the wire carries it: the scheduler's state with the
/// daemon's instance, and, as an event, its time.
public struct ServerSnapshot: Sendable, Hashable {
    public var snapshot: SchedulerSnapshot
    public var instance: String
    /// The event's time; nil for a `list` reply's snapshot.
    public var time: ToastInstant?

    public init(snapshot: SchedulerSnapshot, instance: String, time: ToastInstant? = nil) {
        self.snapshot = snapshot
        self.instance = instance
        self.time = time
    }
}

extension WireDecoder {
    /// A line the daemon wrote, as a `ServerLine`. A line that is neither a
    /// reply nor an event, or an event of a known kind missing what it
    /// needs, is `invalid_request` (a daemon that breaks the protocol).
    public static func decodeServerLine(_ line: JSONValue) throws(ToastError) -> ServerLine {
        if line["ok"] != nil { return .reply(ref: line["ref"], reply(line)) }
        guard let name = line["event"]?.stringValue else {
            throw ToastError(.invalidRequest, "a line from the daemon is neither a reply nor an event")
        }
        let seq = UInt64(max(0, line["seq"]?.intValue ?? 0))
        let time = line["time"]?.intValue ?? 0
        switch name {
        case "snapshot":
            return .snapshot(ServerSnapshot(snapshot: try decodeSnapshot(line), instance: line["instance"]?.stringValue ?? "", time: time))
        case "lagged":
            return .lagged(seq: seq, time: time, dropped: Int(line["dropped"]?.intValue ?? 0))
        case "shutdown":
            return .shutdown(seq: seq, time: time, reason: line["reason"]?.stringValue ?? "")
        default:
            if let event = try decodeEvent(line) { return .event(event) }
            return .unknown(event: name)
        }
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.stringValue)
    }

    /// A snapshot object (6.2): a `snapshot` event, or a `list` reply's result.
    public static func decodeSnapshot(_ value: JSONValue) throws(ToastError) -> SchedulerSnapshot {
        guard case .array(let toastValues)? = value["toasts"], case .array(let stackValues)? = value["stacks"] else {
            throw ToastError(.missingField, "a snapshot lists its toasts and stacks", field: "toasts")
        }
        var toasts: [ToastRecord] = []
        toasts.reserveCapacity(toastValues.count)
        for toast in toastValues { toasts.append(try decodeRecord(toast)) }
        var stacks: [SchedulerSnapshot.Stack] = []
        for stack in stackValues {
            guard let scene = stack["scene"]?.stringValue,
                let alignment = stack["alignment"]?.stringValue.flatMap(ToastAlignment.init(rawValue:))
            else { throw ToastError(.missingField, "a snapshot's stack names its scene and alignment", field: "stacks") }
            stacks.append(
                SchedulerSnapshot.Stack(
                    key: StackKey(scene: scene, alignment: alignment), shown: Int(stack["shown"]?.intValue ?? 0),
                    queued: Int(stack["queued"]?.intValue ?? 0), maxVisible: Int(stack["maxVisible"]?.intValue ?? 0)
                )
            )
        }
        return SchedulerSnapshot(
            pauseLevel: Int(value["pauseLevel"]?.intValue ?? (value["paused"] == .bool(true) ? Int64(PauseLevels().defaultLevel) : 0)),
            modes: Self.strings(value["modes"]),
            sequence: UInt64(max(0, value["sequence"]?.intValue ?? value["seq"]?.intValue ?? 0)),
            stacks: stacks, toasts: toasts
        )
    }
}

extension WireDecoder {
    /// A `history` reply's entries (5.5), newest first.
    public static func decodeHistoryEntries(_ result: JSONValue) throws(ToastError) -> [ToastHistory.Entry] {
        guard case .array(let entries)? = result["entries"] else {
            throw ToastError(.missingField, "a history reply lists its entries", field: "entries")
        }
        var decoded: [ToastHistory.Entry] = []
        for entry in entries {
            guard let toast = entry["toast"], let reason = entry["reason"]?.stringValue, let endedAt = entry["endedAt"]?.intValue,
                let seq = entry["seq"]?.intValue
            else { throw ToastError(.missingField, "a history entry has its toast, reason, endedAt and seq", field: "entries") }
            decoded.append(
                ToastHistory.Entry(
                    record: try decodeRecord(toast), shown: entry["event"] == "dismissed", reason: reason, endedAt: endedAt,
                    seq: UInt64(max(0, seq))
                )
            )
        }
        return decoded
    }
}

/// What `add` (and `restore`) answer (5.3): the toast, and how it was taken.
public struct AddResult: Sendable, Hashable {
    public var record: ToastRecord
    public var deduped: Bool
    /// Ended at once by a rule's `drop` (5.9).
    public var dropped: Bool
    /// The toast this one replaced (a dedupe across alignments, 5.2).
    public var replaced: ToastID?
}

extension WireDecoder {
    /// An `add` or `restore` reply's result.
    public static func decodeAddResult(_ result: JSONValue) throws(ToastError) -> AddResult {
        let record = try decodeUpdateResult(result)
        return AddResult(
            record: record, deduped: result["deduped"] == .bool(true), dropped: result["dropped"] == .bool(true),
            replaced: result["replaced"]?.intValue.map { ToastID(max(0, $0)) }
        )
    }

    /// The toast an `update` reply (or an add's) carries.
    public static func decodeUpdateResult(_ result: JSONValue) throws(ToastError) -> ToastRecord {
        guard let toast = result["toast"] else { throw ToastError(.missingField, "the reply carries no toast", field: "toast") }
        return try decodeRecord(toast)
    }
}

extension WireDecoder {
    /// A `list` page's `next` (the offset of the page after it), or nil
    /// for the last page.
    public static func listNext(_ result: JSONValue) -> Int? {
        result["next"]?.intValue.map { Int(clamping: $0) }
    }

    /// Every page of `list` for `filter`, asked one after another through
    /// `perform` (which sends a request and returns its result), as one
    /// result (`mergeListPages`).
    public static func listAll(_ filter: EventFilter, perform: (JSONValue) throws -> JSONValue) rethrows -> JSONValue {
        var pages = [try perform(WireEncoder.request(.list(filter)))]
        while let next = listNext(pages[pages.count - 1]) {
            pages.append(try perform(WireEncoder.request(.list(filter, page: ListPage(offset: next)))))
        }
        return mergeListPages(pages)
    }

    /// `list`'s pages as one result: the first page's members, every
    /// page's toasts in order, no `next`. (Pages are taken one request
    /// each, so a toast that moves between them may show twice or not at
    /// all: for a consistent view, subscribe.)
    public static func mergeListPages(_ pages: [JSONValue]) -> JSONValue {
        guard case .object(var first)? = pages.first else { return [:] }
        var toasts: [JSONValue] = []
        for page in pages {
            if case .array(let items)? = page["toasts"] { toasts += items }
        }
        first["toasts"] = .array(toasts)
        first["next"] = nil
        return .object(first)
    }
}
