// SPDX-License-Identifier: Apache-2.0
/// Requests, as a client writes them: the typed values of `WireDecoder`'s
/// output turned back into wire form, so that a client in this package
/// never spells a request by hand. `WireDecoder.decode` reads each of them
/// back to the same value (a test holds them to that).
extension WireEncoder {
    /// Any request, as its line's JSON: what `WireDecoder.decode` reads back
    /// to the same `Request` (a property test holds every case to that).
    public static func request(_ request: Request, ref: JSONValue? = nil) -> JSONValue {
        var members: JSONObject
        switch request {
        case .command(let command):
            members = self.command(command)
        case .hello(let hello):
            members = ["op": "hello", "version": .int(Int64(hello.version))]
            if let client = hello.client { members["client"] = .string(client) }
            if let source = hello.source { members["source"] = .string(source) }
            if hello.bindSource { members["bindSource"] = true }
        case .list(let filter, let page):
            members = self.filter(filter)
            members["op"] = "list"
            if page.offset > 0 { members["offset"] = .int(Int64(page.offset)) }
            if page.limit != ListPage.maxLimit { members["limit"] = .int(Int64(page.limit)) }
        case .subscribe(let subscribe):
            members = self.filter(subscribe.filter)
            members["op"] = "subscribe"
            if !subscribe.snapshot { members["snapshot"] = false }
            if let since = subscribe.since { members["since"] = .int(Int64(since)) }
            if let instance = subscribe.instance { members["instance"] = .string(instance) }
        case .status:
            members = ["op": "status"]
        case .history(let query):
            members = self.filter(query.filter)
            members["op"] = "history"
            if let source = query.source { members["source"] = .string(source) }
            if let since = query.since { members["since"] = .int(since) }
            if let limit = query.limit { members["limit"] = .int(Int64(limit)) }
            if let before = query.before { members["before"] = .int(Int64(before)) }
        case .restore(let id):
            members = ["op": "restore"]
            if let id { members["id"] = .int(Int64(id)) } else { members["latest"] = true }
        case .clearHistory(let id):
            members = ["op": "clearHistory"]
            if let id { members["id"] = .int(Int64(id)) }
        case .togglePause(let level):
            members = ["op": "pause", "toggle": true]
            if let level { members["level"] = .int(Int64(level)) }
        case .mode(let change):
            members = ["op": "mode"]
            switch change {
            case .list: break
            case .set(let names): members["set"] = .array(names.map { .string($0) })
            case .add(let name): members["add"] = .string(name)
            case .remove(let name): members["remove"] = .string(name)
            case .toggle(let name): members["toggle"] = .string(name)
            }
        case .inhibit(let reason):
            members = ["op": "inhibit"]
            if let reason { members["reason"] = .string(reason) }
        case .uninhibit:
            members = ["op": "uninhibit"]
        case .reload:
            members = ["op": "reload"]
        }
        if let ref { members["ref"] = ref }
        return .object(members)
    }

    /// A request with what its envelope knows besides: the `ref`, and for
    /// an add the fields the sender gave explicitly although they equal the
    /// defaults (alignment `top`, `dismissible` true), which role defaults
    /// must then leave alone. `WireDecoder.decode` reads the line back to
    /// the same envelope (a duration of nil always reads as defaulted).
    public static func request(_ envelope: RequestEnvelope) -> JSONValue {
        let line = request(envelope.request, ref: envelope.ref)
        guard case .command(.add(let toast)) = envelope.request, case .object(var members) = line,
            case .object(var fields)? = members["toast"]
        else { return line }
        if !envelope.defaulted.contains(.alignment) { fields["alignment"] = .string(toast.alignment.rawValue) }
        if !envelope.defaulted.contains(.dismissible) { fields["dismissible"] = .bool(toast.dismissible) }
        members["toast"] = .object(fields)
        return .object(members)
    }

    private static func command(_ command: SchedulerCommand) -> JSONObject {
        switch command {
        case .add(let toast), .drop(let toast):
            return ["op": "add", "toast": requestToast(toast)]
        case .update(let target, let patch):
            var members = self.target(target)
            members["op"] = "update"
            members["toast"] = updateRequest(id: 0, patch: patch)["toast"]
            return members
        case .remove(let target):
            return self.target(target).merging(["op": "remove"]) { $1 }
        case .dismiss(let target):
            return self.target(target).merging(["op": "dismiss"]) { $1 }
        case .invoke(let target, let action):
            return self.target(target).merging(["op": "invoke", "action": .string(action)]) { $1 }
        case .clear(let scope):
            var members: JSONObject = ["op": "clear"]
            if let scene = scope.scene { members["scene"] = .string(scene) }
            if let alignment = scope.alignment { members["alignment"] = .string(alignment.rawValue) }
            if scope.force { members["force"] = true }
            return members
        case .pause(let level):
            return level.map { ["op": "pause", "level": .int(Int64($0))] } ?? ["op": "pause"]
        case .resume:
            return ["op": "resume"]
        case .endSource(let source):
            return ["op": "endSource", "source": .string(source)]
        case .inhibit(let level):
            // Inhibitors are per connection on the wire: `inhibit` holds, a level of 0 releases.
            return level > 0 ? ["op": "inhibit"] : ["op": "uninhibit"]
        case .setModes(let modes):
            return ["op": "mode", "set": .array(modes.map { .string($0) })]
        case .tick:
            // Time passes by itself on the wire; `status` is the harmless request nearest to a tick.
            return ["op": "status"]
        }
    }

    private static func target(_ target: ToastTarget) -> JSONObject {
        switch target {
        case .id(let id): ["id": .int(Int64(id))]
        case .reuseID(let reuseID, let scene):
            scene == Toast.defaultScene ? ["reuseId": .string(reuseID)] : ["reuseId": .string(reuseID), "scene": .string(scene)]
        }
    }

    private static func filter(_ filter: EventFilter) -> JSONObject {
        var members: JSONObject = [:]
        if let scene = filter.scene { members["scene"] = .string(scene) }
        if let roles = filter.roles { members["roles"] = .array(roles.map(\.rawValue).sorted().map { .string($0) }) }
        return members
    }

    /// The `toast` member of `add`: every member the toast sets, defaults left out.
    public static func requestToast(_ toast: Toast) -> JSONValue {
        var members: JSONObject = [:]
        for member in ToastMember.allCases where toast.writes(member, in: .request) {
            members[member.name] = toast.jsonValue(of: member)
        }
        return .object(members)
    }

    /// `{"op":"update","id":N,"toast":{...}}`: the patch's members, `null` for a reset.
    public static func updateRequest(id: ToastID, patch: ToastPatch) -> JSONValue {
        var members: JSONObject = [:]
        for member in ToastMember.allCases where member.isPatchable {
            if let value = patch.jsonValue(of: member) { members[member.name] = value }
        }
        return ["op": "update", "id": .int(Int64(id)), "toast": .object(members)]
    }

    static func progress(_ progress: ToastProgress) -> JSONValue? {
        switch progress {
        case .none: nil
        case .indeterminate: "indeterminate"
        case .fraction(let value): .double(value)
        }
    }

    static func actions(_ actions: [ToastAction]) -> JSONValue {
        .array(actions.map { ["id": .string($0.id), "label": .string($0.label)] })
    }
}
