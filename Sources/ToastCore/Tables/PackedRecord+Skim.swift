// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// A restart's quick look at a waiting toast's stored bytes.
///
/// A restart must check every stored toast as an add is checked (the file
/// is untrusted input), then enter it in the scheduler's indexes. A waiting
/// toast keeps its bytes, so the `ToastRecord` that `checkedRecord` built
/// for the check was thrown away again: unpacking it, validating it and
/// freeing it were about half of a restart's instructions
/// (docs/BENCHMARKS.md, "A restart that reads waiting toasts in place").
///
/// `skim` checks the common toast in place instead: every text (and action
/// id, and image path) plain ASCII, each text starting with a printable
/// character, and no image's pixels. It reads the members the indexes
/// need as views of the bytes. Anything else it leaves to the full check
/// (`StoredToast.checked`), which also names the damage, so it never
/// accepts what that check refuses.
extension PackedRecord {
    /// What a restart indexes a waiting toast by, the texts as views of
    /// its bytes (valid only inside `withSkim`).
    struct Skim {
        let header: Header
        var message = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var title: UnsafeBufferPointer<UInt8>?
        var scene = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var reuseID: UnsafeBufferPointer<UInt8>?
        var source: UnsafeBufferPointer<UInt8>?
        var alignment = ToastAlignment.top
        var cancellation = CancellationPolicy.never
        var dedupe = true

        /// Whether the toast has an identity (`SchedulerStateMachine.Identity`).
        var hasIdentity: Bool { reuseID != nil || dedupe }

        /// Its identity's hash, as `IdentityIndex.hash` gives it for the
        /// unpacked toast's identity.
        func identityHash(seed: UInt64) -> Int {
            var hasher = IdentityIndex.Hasher(seed: seed)
            if let reuseID {
                hasher.mix(scene)
                hasher.mix(reuseID)
            } else {
                hasher.startContent()
                hasher.mix(scene)
                hasher.mix(SchedulerStateMachine.Identity.sender(of: source))
                hasher.mix(title: title)
                hasher.mix(message)
            }
            return hasher.value
        }

        /// Whether `check` passes.
        private static func passes(_ check: () throws(ToastError) -> Void) -> Bool {
            do throws(ToastError) {
                try check()
                return true
            } catch {
                return false
            }
        }

        /// Reads `member`; false if the full check must decide.
        fileprivate mutating func read(_ member: ToastMember, from reader: inout Reader) throws(Damage) -> Bool {
            switch member {
            case .message:
                guard let text = try reader.plainText(max: ToastLimits.messageBytes) else { return false }
                message = text
            case .title: return try reader.optionalPlainText(max: ToastLimits.titleBytes, into: &title)
            case .icon: return try reader.optionalPlainText(max: ToastLimits.iconBytes)
            case .role: _ = try reader.choice(of: PackedRecord.roles.count, "toast.role")
            case .duration:
                switch try reader.byte() {
                case 0...4: break
                case 5:
                    let seconds = try reader.double()
                    return Self.passes { () throws(ToastError) in try ToastDuration.seconds(seconds).validate(field: "") }
                default: return false
                }
            case .alignment: alignment = PackedRecord.alignments[try reader.choice(of: PackedRecord.alignments.count, "toast.alignment")]
            case .scene:
                guard let name = try reader.plainName(max: ToastLimits.sceneBytes) else { return false }
                scene = name
            case .reuseID: return try reader.optionalPlainText(max: ToastLimits.reuseIDBytes, into: &reuseID)
            case .progress:
                switch try reader.byte() {
                case 0, 1: break
                case 2:
                    let fraction = try reader.double()
                    return Self.passes { () throws(ToastError) in try ToastProgress.fraction(fraction).validate(field: "") }
                default: return false
                }
            case .dismissible, .closeButton, .resident, .transient: _ = try reader.bool()
            case .actions: return try reader.plainActions()
            case .source: return try reader.optionalPlainText(max: ToastLimits.sourceBytes, into: &source)
            case .cancellation:
                cancellation = PackedRecord.cancellations[try reader.choice(of: PackedRecord.cancellations.count, "toast.cancellation")]
            case .invalidation: return try reader.byte() & ~PackedRecord.invalidationBits == 0
            case .level:
                guard let level = try reader.optional() else { return true }
                return PauseLevels.range.contains(Int(level))
            case .markup: return try reader.optionalPlainText(max: ToastLimits.markupBytes)
            case .category: return try reader.optionalPlainText(max: ToastLimits.categoryBytes)
            case .desktopEntry: return try reader.optionalPlainText(max: ToastLimits.desktopEntryBytes)
            case .soundName: return try reader.optionalPlainText(max: ToastLimits.soundNameBytes)
            case .urgency: return try reader.byte() <= 3
            case .dedupe: dedupe = try reader.bool()
            case .image:
                switch try reader.byte() {
                case 0: break
                case 1: return try reader.plainPath(max: ToastLimits.imagePathBytes)
                default: return false  // pixels
                }
            }
            return true
        }
    }

    /// `body` given this record's skim, or nil if the full check must
    /// decide: the bytes are damaged, or the toast is not one `skim` reads.
    func withSkim<Result>(_ body: (Skim) -> Result) -> Result? {
        bytes.withUnsafeBufferPointer { buffer in Self.skim(buffer).map(body) }
    }

    /// A skim kept apart from the bytes it read: its views as offsets
    /// into them. A restart skims on the thread that reads the rows and
    /// indexes on another (`SchedulerStateMachine.Restoration`).
    package struct Skimmed: Sendable {
        fileprivate typealias Span = (start: Int32, count: Int32)

        fileprivate let header: Header
        fileprivate let message: Span
        fileprivate let title: Span?
        fileprivate let scene: Span
        fileprivate let reuseID: Span?
        fileprivate let source: Span?
        fileprivate let alignment: ToastAlignment
        fileprivate let cancellation: CancellationPolicy
        fileprivate let dedupe: Bool

        /// Whether the toast waits (only a waiting toast is entered from its skim).
        var waits: Bool { header.state == .queued }

        fileprivate init(_ skim: Skim, in buffer: UnsafeBufferPointer<UInt8>) {
            func span(_ view: UnsafeBufferPointer<UInt8>) -> Span {
                // An empty view may have no address; its offset does not matter.
                guard let start = view.baseAddress, let base = buffer.baseAddress else { return (0, 0) }
                return (Int32(start - base), Int32(view.count))
            }
            header = skim.header
            message = span(skim.message)
            title = skim.title.map(span)
            scene = span(skim.scene)
            reuseID = skim.reuseID.map(span)
            source = skim.source.map(span)
            alignment = skim.alignment
            cancellation = skim.cancellation
            dedupe = skim.dedupe
        }

        /// The skim of `buffer` (the bytes it was taken from) back.
        fileprivate func skim(of buffer: UnsafeBufferPointer<UInt8>) -> Skim {
            func view(_ span: Span) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: buffer[Int(span.start)..<Int(span.start + span.count)])
            }
            var skim = Skim(header: header)
            skim.message = view(message)
            skim.title = title.map(view)
            skim.scene = view(scene)
            skim.reuseID = reuseID.map(view)
            skim.source = source.map(view)
            skim.alignment = alignment
            skim.cancellation = cancellation
            skim.dedupe = dedupe
            return skim
        }
    }

    /// This record's skim kept apart from its bytes, or nil if the full
    /// check must decide (as `withSkim`).
    package var skimmed: Skimmed? {
        bytes.withUnsafeBufferPointer { buffer in Self.skim(buffer).map { Skimmed($0, in: buffer) } }
    }

    /// `body` given the skim `skimmed` took of this record's bytes.
    func withSkim<Result>(_ skimmed: Skimmed, _ body: (Skim) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { buffer in body(skimmed.skim(of: buffer)) }
    }

    static func skim(_ buffer: UnsafeBufferPointer<UInt8>) -> Skim? {
        var reader = Reader(buffer, checksText: true)
        do {
            var skim = Skim(header: try Header(&reader))
            for member in members {
                guard try skim.read(member, from: &reader) else { return nil }
            }
            return reader.remaining == 0 ? skim : nil
        } catch {
            return nil
        }
    }
}

extension PackedRecord.Reader {
    /// A text that `Toast.validate` accepts at a glance, as a view of the
    /// bytes: at most `max` of them, all ASCII (so UTF-8), the first one
    /// printable (so not blank). Nil for any other text.
    mutating func plainText(max: Int) throws(PackedRecord.Damage) -> UnsafeBufferPointer<UInt8>? {
        let text = try take()
        guard text.count <= max, let first = text.first, first > 0x20, first < 0x7F, text.isASCII else { return nil }
        return text
    }

    /// An optional `plainText` into `text`; false if it is there and not plain.
    mutating func optionalPlainText(max: Int, into text: inout UnsafeBufferPointer<UInt8>?) throws(PackedRecord.Damage) -> Bool {
        guard try bool("an optional text's presence") else {
            text = nil
            return true
        }
        text = try plainText(max: max)
        return text != nil
    }

    /// `optionalPlainText` for a text that is only checked.
    mutating func optionalPlainText(max: Int) throws(PackedRecord.Damage) -> Bool {
        var text: UnsafeBufferPointer<UInt8>?
        return try optionalPlainText(max: max, into: &text)
    }

    /// A name `Toast.checkName` accepts, or nil.
    mutating func plainName(max: Int) throws(PackedRecord.Damage) -> UnsafeBufferPointer<UInt8>? {
        let name = try take()
        guard !name.isEmpty, name.count <= max, name.allSatisfy(Toast.isNameByte) else { return nil }
        return name
    }

    /// Actions that `Toast.checkActions` accepts at a glance (plain ids
    /// and labels, no id twice); false for any others.
    mutating func plainActions() throws(PackedRecord.Damage) -> Bool {
        let count = try unsigned()
        guard count > 0 else { return true }
        guard count <= ToastLimits.maxActions else { return false }
        var ids: [UnsafeBufferPointer<UInt8>] = []
        ids.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let id = try plainName(max: ToastLimits.actionIDBytes),
                try plainText(max: ToastLimits.actionLabelBytes) != nil,
                !ids.contains(where: { $0.elementsEqual(id) })
            else { return false }
            ids.append(id)
        }
        return true
    }

    /// An image's path that `ToastImage.problem` accepts at a glance: 1 to
    /// `max` bytes of ASCII without NUL.
    mutating func plainPath(max: Int) throws(PackedRecord.Damage) -> Bool {
        let path = try take()
        return !path.isEmpty && path.count <= max && path.isASCII && !path.contains(0)
    }
}

extension StoredToast {
    /// Where the restart's skim of the row stored as `bytes` disagrees
    /// with the full check (`checked`): it takes a row the full check
    /// refuses, or reads one of its members otherwise. Nil where they
    /// agree, or where the skim leaves the row to the full check. For the
    /// tests and the fuzzer, which hold the skim to the full check.
    package static func skimDisagreement(id: ToastID, from bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let row = try? row(id: id, from: bytes) else { return nil }
        let full = try? checked(row)
        let disagreement = row.withSkim { skim -> String? in
            guard let record = full else { return "the skim took a stored toast the full check refuses" }
            return skim.disagreement(with: record)
        }
        return disagreement ?? nil
    }
}

extension PackedRecord.Skim {
    /// The first member this skim reads otherwise than `record` holds it.
    func disagreement(with record: ToastRecord) -> String? {
        func text(_ bytes: UnsafeBufferPointer<UInt8>?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
        let toast = record.toast
        let identity = SchedulerStateMachine.Identity(toast)
        let seed = UInt64.random(in: .min ... .max)
        let members: [(name: String, same: Bool)] = [
            ("the state", header.state == record.state), ("the placement", header.placement == record.placement),
            ("the creation", header.createdAt == record.createdAt), ("the presentation", header.presentedAt == record.presentedAt),
            ("the expiry", header.expiresAt == record.expiresAt), ("the message", text(message) == toast.message),
            ("the title", text(title) == toast.title), ("the scene", text(scene) == toast.scene),
            ("the reuse id", text(reuseID) == toast.reuseID), ("the source", text(source) == toast.source),
            ("the alignment", alignment == toast.alignment), ("the cancellation", cancellation == toast.cancellation),
            ("whether it has an identity", hasIdentity == (identity != nil)),
            ("the identity's hash", identity.map { identityHash(seed: seed) == IdentityIndex.hash($0, seed: seed) } ?? true),
        ]
        return members.first { !$0.same }.map { "the skim reads \($0.name) otherwise than the full check" }
    }
}
