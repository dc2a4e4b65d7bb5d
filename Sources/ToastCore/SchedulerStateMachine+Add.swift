// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

extension SchedulerStateMachine {
    // MARK: - Add and update

    /// Adds a toast already validated (`perform`).
    mutating func add(_ toast: Toast) throws(ToastError) -> SchedulerReply {
        let identity = Identity(toast)
        let source = toast.source ?? Self.anonymousSource

        if let existing = holderRecord(of: identity) {
            if existing.toast.alignment == toast.alignment {
                return .added(dedupe(existing, with: toast), deduped: true, replaced: nil)
            }
            // The same toast, moved to another stack: it is replaced.
            try checkLimits(source: source, freeing: existing)
            end(existing, dismissed: .replaced, cancelled: .replaced)
            applySourceTriggers(source)
            return .added(insert(toast), deduped: false, replaced: existing.id)
        }

        try checkLimits(source: source, freeing: nil)
        applySourceTriggers(source)
        return .added(insert(toast), deduped: false, replaced: nil)
    }

    mutating func checkLimits(source: String, freeing existing: ToastRecord?) throws(ToastError) {
        let freed = existing == nil ? 0 : 1
        if records.count - freed >= configuration.maxToasts {
            throw ToastError(
                .queueFull,
                "toastd already holds its limit of \(configuration.maxToasts) toasts; wait for some to end, or clear them"
            )
        }
        let fromSource = (sources[source]?.all.count ?? 0) - (existing?.sourceKey == source ? 1 : 0)
        if fromSource >= configuration.maxToastsPerSource {
            throw ToastError(
                .sourceQueueFull,
                "source '\(source)' already holds its limit of \(configuration.maxToastsPerSource) toasts",
                field: "toast.source"
            )
        }
    }

    /// A waiting toast whose level a re-add or an update raised (its own
    /// `level`, a rule's, or a role with a higher level) may now break
    /// through the pause: it shows at once if its stack has a free slot.
    mutating func showIfItBreaksThrough(_ record: ToastRecord) -> ToastRecord {
        guard record.state == .queued, isPaused, !isHeld(record) else { return record }
        fill(record.stack)
        return records[record.id] ?? record
    }

    mutating func insert(_ toast: Toast) -> ToastRecord {
        let id = nextID
        nextID += 1
        let record = ToastRecord(
            id: id, toast: toast, state: .queued, repeatCount: 1, createdAt: clock, presentedAt: nil, expiresAt: nil,
            placement: nextSequence
        )
        let key = record.stack
        let (held, paused, limit) = (isHeld(record), isPaused, configuration.maxVisible(key.alignment))
        // One lookup of the stack decides whether the toast shows and, if
        // not, puts it in line.
        let canShow = Self.admit(id, to: &stacks[key, default: Stack()], held: held, paused: paused, limit: limit)
        storeNew(record)
        if canShow {
            present(id)
            return records[id]!
        }
        emit(.queued(record))
        return record
    }

    /// Whether a new toast shows at once in `stack`; if not, it joins the
    /// queue. While paused the queue may hold toasts held back; one that
    /// breaks through goes ahead of them (a free slot means none waits that
    /// could show).
    static func admit(_ id: ToastID, to stack: inout Stack, held: Bool, paused: Bool, limit: Int) -> Bool {
        if !held && (stack.queue.isEmpty || paused) && stack.shown.count < limit { return true }
        stack.queue.append(id)
        return false
    }

    mutating func update(_ target: ToastTarget, _ patch: ToastPatch) throws(ToastError) -> SchedulerReply {
        let existing = try resolve(target)
        let toast = patch.applied(to: existing.toast)
        try toast.validate()
        let identity = Identity(toast)
        if let other = holder(of: identity), other != existing.id {
            throw ToastError(
                .conflict,
                "the update would make toast \(existing.id) the same as live toast \(other) (same title and message)"
            )
        }
        var record = existing
        record.toast = toast
        let lifetimeChanged = patch.duration != nil || existing.toast.effectiveLifetime != toast.effectiveLifetime
        if record.state == .shown && lifetimeChanged {
            record.expiresAt = toast.effectiveLifetime.map { clock + $0 }
        }
        // An update that changes nothing (a progress loop sending the same
        // value again) is answered, and emits nothing, as a `pause` or a
        // `mode` that changes nothing does (PROTOCOL.md 5.3).
        if record == existing { return .updated(existing) }
        store(record, replacing: existing)
        emit(.updated(record))
        return .updated(showIfItBreaksThrough(record))
    }

    func resolve(_ target: ToastTarget) throws(ToastError) -> ToastRecord {
        if let record = record(for: target) { return record }
        switch target {
        case .id(let id):
            throw ToastError(.notFound, "no live toast has id \(id); it may have ended already", field: "id")
        case .reuseID(let reuseID, let scene):
            throw ToastError(.notFound, "no live toast in scene '\(scene)' has reuse id '\(reuseID)'", field: "reuseId")
        }
    }
}
