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
    private var byHash: [Int: ToastID] = [:]
    private var overflow: [SchedulerStateMachine.Identity: ToastID] = [:]
    /// The hash an identity is kept under (a test forces collisions with it).
    private let hash: @Sendable (SchedulerStateMachine.Identity) -> Int

    init(hash: @escaping @Sendable (SchedulerStateMachine.Identity) -> Int = { $0.hashValue }) {
        self.hash = hash
    }

    var count: Int { byHash.count + overflow.count }

    /// The toast with `identity`; `identity(of:)` names the identity of a live toast.
    func find(
        _ identity: SchedulerStateMachine.Identity, identity of: (ToastID) -> SchedulerStateMachine.Identity?
    ) -> ToastID? {
        if let id = byHash[hash(identity)], of(id) == identity { return id }
        return overflow.isEmpty ? nil : overflow[identity]
    }

    mutating func insert(
        _ identity: SchedulerStateMachine.Identity, _ id: ToastID, identity of: (ToastID) -> SchedulerStateMachine.Identity?
    ) {
        let hash = self.hash(identity)
        if let holder = byHash[hash], holder != id, let held = of(holder), held != identity {
            overflow[identity] = id
        } else {
            byHash[hash] = id
        }
    }

    /// Forgets `identity` if `id` holds it.
    mutating func remove(_ identity: SchedulerStateMachine.Identity, _ id: ToastID) {
        let hash = self.hash(identity)
        if byHash[hash] == id {
            byHash[hash] = nil
        } else if overflow[identity] == id {
            overflow[identity] = nil
        }
    }
}
