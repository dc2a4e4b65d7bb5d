// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// Dedupe (PROTOCOL.md 5.2): the same toast added again updates the live
/// one in place instead of adding a second. Two toasts are the same by
/// `Identity`; `IdentityIndex` finds the live holder of one; `dedupe` is what
/// happens to it. `add` (SchedulerStateMachine+Add.swift) decides between a
/// new toast, a dedupe and a replacement.
extension SchedulerStateMachine {
    /// Two toasts are the same toast when their reuse ids match, or, where
    /// neither has one, when their titles and messages match and they come
    /// from the same sender (YSnackbar's rule, within one sender). Identity
    /// is scoped to a scene. A toast with `dedupe` off and no reuse id has
    /// none: it is never the same as another (each freedesktop Notify is
    /// a notification of its own).
    ///
    /// The sender is the toast's source without the `[pid]` toastd gives a
    /// default source: two runs of `toastctl add` are one sender, two
    /// programs are two. A reuse id is a name the senders of a scene share.
    enum Identity: Hashable, Sendable {
        case reuse(scene: String, id: String)
        case content(scene: String, sender: Substring, title: String?, message: String)

        /// Whether two toasts have the same identity (or both none), without hashing.
        static func same(_ a: Toast, _ b: Toast) -> Bool {
            guard a.scene == b.scene, a.reuseID == b.reuseID else { return false }
            if a.reuseID != nil { return true }
            guard a.dedupe == b.dedupe else { return false }
            guard a.dedupe else { return true }
            return a.title == b.title && a.message == b.message
                && (a.source == b.source || sender(of: a.source) == sender(of: b.source))
        }

        init?(_ toast: Toast) {
            if let reuseID = toast.reuseID {
                self = .reuse(scene: toast.scene, id: reuseID)
            } else if toast.dedupe {
                self = .content(scene: toast.scene, sender: Self.sender(of: toast.source), title: toast.title, message: toast.message)
            } else {
                return nil
            }
        }

        /// A source without a trailing `[digits]` (the peer's pid): a slice
        /// of it, not a copy. A restart runs this for every live toast,
        /// and copying the sender out was 8% of a restart's instructions
        /// (docs/BENCHMARKS.md, "A restart's records stored lean").
        static func sender(of source: String?) -> Substring {
            guard let source else { return "" }
            let utf8 = source.utf8
            guard let cut = utf8.withContiguousStorageIfAvailable(pidSuffixStart) ?? Array(utf8).withUnsafeBufferPointer(pidSuffixStart)
            else { return source[...] }
            return source[..<utf8.index(utf8.startIndex, offsetBy: cut)]
        }

        /// `sender(of:)` for a source's bytes (a stored record's, `PackedRecord.Skim`).
        static func sender(of source: UnsafeBufferPointer<UInt8>?) -> UnsafeBufferPointer<UInt8> {
            guard let source else { return UnsafeBufferPointer(start: nil, count: 0) }
            guard let cut = pidSuffixStart(source) else { return source }
            return UnsafeBufferPointer(rebasing: source[..<cut])
        }

        /// Where a trailing `[digits]` (at least one digit) starts in `bytes`.
        private static func pidSuffixStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
            var index = bytes.count - 1
            guard index > 0, bytes[index] == UInt8(ascii: "]") else { return nil }
            index -= 1
            let lastDigit = index
            while index >= 0, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index -= 1 }
            guard index >= 0, index < lastDigit, bytes[index] == UInt8(ascii: "[") else { return nil }
            return index
        }
    }

    /// The live toast with this identity.
    func holder(of identity: Identity?) -> ToastID? {
        guard let identity else { return nil }
        return identities.find(identity, identity: records.identity(of:))
    }

    /// The live toast with this identity, its record unpacked once: the
    /// index's check that the toast holds the identity reads the record,
    /// and reading it again for the caller was a second unpacking of a
    /// waiting toast on every re-add (a third of the ingest's adds).
    func holderRecord(of identity: Identity?) -> ToastRecord? {
        guard let identity else { return nil }
        var checked: ToastRecord?
        let id = identities.find(identity) { id in
            checked = records[id]
            return checked.flatMap { Identity($0.toast) }
        }
        guard let id else { return nil }
        return checked?.id == id ? checked : records[id]
    }

    /// The same toast again: update it where it is, and if it is shown move
    /// it to the newest place and restart its timer. The repeat counts
    /// identical toasts (same title and message) from one source: a
    /// reuse id's new text starts the count again at 1, so a volume OSD
    /// updated in place never reads ×6.
    /// It keeps what `update` may not change either: the source and the
    /// policies that tie the toast to it belong to whoever added it first.
    mutating func dedupe(_ existing: ToastRecord, with toast: Toast) -> ToastRecord {
        var record = existing
        record.toast = toast
        record.toast.source = existing.toast.source
        record.toast.cancellation = existing.toast.cancellation
        record.toast.invalidation = existing.toast.invalidation
        let identical = existing.toast.title == toast.title && existing.toast.message == toast.message
        record.repeatCount = identical ? existing.repeatCount + 1 : 1
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
