// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// Which live toast has an identity (a reuse id, or a title and message,
/// within a scene), keyed by the identity's hash rather than the identity.
///
/// A `[Identity: ToastID]` stored every key's scene, title and message
/// strings in its table: about 64 bytes a slot, 160 bytes a toast at
/// 100,000 toasts (docs/BENCHMARKS.md, "Memory"). Here a slot is a hash and
/// an id, 16 bytes. Two identities whose hashes collide are still told
/// apart: the one found under a hash is checked against the toast it names
/// (`identity(of:)`), and an identity whose hash is taken by another goes
/// to a small overflow table keyed by the identity itself.
struct IdentityIndex: Sendable {
    /// Keyed by `key(_:)`: the hashes are seeded at random, so the table
    /// need not hash them again (an `[Int: ToastID]` ran SipHash over each).
    private var byHash = IDTable<ToastID>(filler: 0)
    private var overflow: [SchedulerStateMachine.Identity: ToastID] = [:]
    private let seed = UInt64.random(in: .min ... .max)
    /// The hash an identity is kept under instead of `hash(_:seed:)`, when
    /// a test forces collisions. (Called through a closure always, the
    /// hash was a fifth of storing a record.)
    private let forcedHash: (@Sendable (SchedulerStateMachine.Identity) -> Int)?

    init(hash: (@Sendable (SchedulerStateMachine.Identity) -> Int)? = nil) {
        forcedHash = hash
    }

    /// An identity's hash, read eight bytes at a time: `hashValue` (SipHash
    /// over the scene, title and message) was two thousand instructions of
    /// every add, which hashes the identity twice. Collisions cost nothing
    /// but a look at the toast (see above), and the seed is random per
    /// scheduler, so nobody outside can aim for them.
    static func hash(_ identity: SchedulerStateMachine.Identity, seed: UInt64) -> Int {
        var hasher = Hasher(seed: seed)
        switch identity {
        case .reuse(let scene, let id):
            hasher.mix(scene)
            hasher.mix(id)
        case .content(let scene, let sender, let title, let message):
            hasher.startContent()
            hasher.mix(scene)
            hasher.mix(sender)
            hasher.mix(title: title)
            hasher.mix(message)
        }
        return hasher.value
    }

    /// Folds an identity's members into its hash, in the order `hash`
    /// gives them; a restart gives the same members as bytes of a stored
    /// record (`PackedRecord.Skim.identityHash`).
    struct Hasher {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        var value: Int { Int(truncatingIfNeeded: state) }

        /// Sets a content identity apart from a reuse identity.
        mutating func startContent() { state ^= 0xA076_1D64_78BD_642F }

        mutating func mix(_ text: String) {
            var text = text
            text.withUTF8 { mix($0) }
        }

        mutating func mix(_ text: Substring) {
            var text = text
            text.withUTF8 { mix($0) }
        }

        /// A title, or a mark that there is none.
        mutating func mix(title: String?) {
            if let title { mix(title) } else { markNoTitle() }
        }

        mutating func mix(title: UnsafeBufferPointer<UInt8>?) {
            if let title { mix(title) } else { markNoTitle() }
        }

        private mutating func markNoTitle() { state = Self.finish(state ^ 0xE703_7ED1_A0B4_28DB) }

        /// Folds `bytes` (their count, then the bytes) in.
        mutating func mix(_ bytes: UnsafeBufferPointer<UInt8>) {
            var value = Self.finish(state ^ UInt64(bytes.count))
            // Empty bytes may or may not have an address: the same either way.
            guard !bytes.isEmpty, let base = bytes.baseAddress else {
                state = value
                return
            }
            var offset = 0
            while offset + 8 <= bytes.count {
                value = (value ^ UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                value ^= value >> 32
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count {
                tail |= UInt64(base[offset]) << shift
                shift += 8
                offset += 1
            }
            state = Self.finish(value ^ tail)
        }

        /// SplitMix64's finalizer: every bit of the input moves every bit out.
        private static func finish(_ value: UInt64) -> UInt64 {
            var value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    var count: Int { byHash.count + overflow.count }

    /// An identity's hash as `byHash`'s key.
    private func key(_ identity: SchedulerStateMachine.Identity) -> UInt64 {
        UInt64(UInt(bitPattern: forcedHash?(identity) ?? Self.hash(identity, seed: seed)))
    }

    /// The toast with `identity`; `identity(of:)` names the identity of a live toast.
    func find(
        _ identity: SchedulerStateMachine.Identity, identity of: (ToastID) -> SchedulerStateMachine.Identity?
    ) -> ToastID? {
        if let id = byHash[key(identity)], of(id) == identity { return id }
        return overflow.isEmpty ? nil : overflow[identity]
    }

    mutating func insert(
        _ identity: SchedulerStateMachine.Identity, _ id: ToastID, identity of: (ToastID) -> SchedulerStateMachine.Identity?
    ) {
        insert(key: key(identity), id, identity: { identity }, identity: of)
    }

    /// `insert` for a toast whose identity's hash `hash` gives for a seed
    /// (a restart's, from the stored bytes): `identity` makes the identity
    /// itself only when another toast holds the hash or a test forces it.
    mutating func insert(
        hashed hash: (UInt64) -> Int, _ id: ToastID, identity: () -> SchedulerStateMachine.Identity,
        identity of: (ToastID) -> SchedulerStateMachine.Identity?
    ) {
        let key = forcedHash == nil ? UInt64(UInt(bitPattern: hash(seed))) : self.key(identity())
        insert(key: key, id, identity: identity, identity: of)
    }

    private mutating func insert(
        key: UInt64, _ id: ToastID, identity: () -> SchedulerStateMachine.Identity,
        identity of: (ToastID) -> SchedulerStateMachine.Identity?
    ) {
        if let holder = byHash[key], holder != id, let held = of(holder), case let identity = identity(), held != identity {
            overflow[identity] = id
        } else {
            byHash[key] = id
        }
    }

    /// Forgets `identity` if `id` holds it.
    mutating func remove(_ identity: SchedulerStateMachine.Identity, _ id: ToastID) {
        let key = self.key(identity)
        if byHash[key] == id {
            byHash[key] = nil
        } else if overflow[identity] == id {
            overflow[identity] = nil
        }
    }
}
