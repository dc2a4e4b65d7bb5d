import ToastProtocol

/// Dedupe (PROTOCOL.md 5.2): the same toast added again updates the live
/// one in place instead of adding a second. Two toasts are the same by
/// `Identity`; `IdentityIndex` finds the live holder of one; `dedupe` is what
/// happens to it. `add` (SchedulerStateMachine+Add.swift) decides between a
/// new toast, a dedupe and a replacement.
extension SchedulerStateMachine {
    /// Two toasts are the same toast when their reuse ids match, or, where
    /// neither has one, when their titles and messages match (YSnackbar's
    /// rule). Identity is scoped to a scene.
    enum Identity: Hashable, Sendable {
        case reuse(scene: String, id: String)
        case content(scene: String, title: String?, message: String)

        /// Whether two toasts have the same identity, without hashing.
        static func same(_ a: Toast, _ b: Toast) -> Bool {
            guard a.scene == b.scene, a.reuseID == b.reuseID else { return false }
            return a.reuseID != nil || (a.title == b.title && a.message == b.message)
        }

        init(_ toast: Toast) {
            if let reuseID = toast.reuseID {
                self = .reuse(scene: toast.scene, id: reuseID)
            } else {
                self = .content(scene: toast.scene, title: toast.title, message: toast.message)
            }
        }
    }

    /// The live toast with this identity.
    func holder(of identity: Identity) -> ToastID? {
        identities.find(identity, identity: records.identity(of:))
    }

    /// The live toast with this identity, its record unpacked once: the
    /// index's check that the toast holds the identity reads the record,
    /// and reading it again for the caller was a second unpacking of a
    /// waiting toast on every re-add (a third of the ingest's adds).
    func holderRecord(of identity: Identity) -> ToastRecord? {
        var checked: ToastRecord?
        let id = identities.find(identity) { id in
            checked = records[id]
            return checked.map { Identity($0.toast) }
        }
        guard let id else { return nil }
        return checked?.id == id ? checked : records[id]
    }

    /// The same toast again: update it where it is, count the repeat, and if
    /// it is shown move it to the newest place and restart its timer.
    /// It keeps what `update` may not change either: the source and the
    /// policies that tie the toast to it belong to whoever added it first.
    mutating func dedupe(_ existing: ToastRecord, with toast: Toast) -> ToastRecord {
        var record = existing
        record.toast = toast
        record.toast.source = existing.toast.source
        record.toast.cancellation = existing.toast.cancellation
        record.toast.invalidation = existing.toast.invalidation
        record.repeatCount += 1
        if record.state == .shown {
            let key = record.stack
            stacks[key]!.shown.removeAll { $0 == record.id }
            stacks[key]!.shown.append(record.id)
            record.expiresAt = toast.effectiveLifetime.map { clock + $0 }
            record.placement = nextSequence
        }
        store(record, replacing: existing)
        emit(.updated(record))
        return showIfItBreaksThrough(record)
    }
}
