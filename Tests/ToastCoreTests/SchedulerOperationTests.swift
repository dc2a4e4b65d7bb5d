// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("Scheduler: dedupe, update, dismiss, actions, clear, pause")
struct SchedulerOperationTests {
    // MARK: Dedupe

    @Test func reAddingAShownToastUpdatesItInPlaceAndRestartsItsTimer() {
        var h = SchedulerHarness()
        let first = h.add(toast("a", duration: .short, reuseID: "build"))
        h.add(toast("b"))
        h.advance(by: 1_500)
        let transition = h.send(.add(toast("a, again", role: .success, duration: .short, reuseID: "build")))
        guard case .success(.added(let record, deduped: true, replaced: nil)) = transition.reply else {
            Issue.record("expected a dedupe, got \(transition.reply)")
            return
        }
        #expect(record.id == first)
        #expect(record.repeatCount == 1, "new text under a reuse id is an update, not a repeat")
        #expect(record.toast.message == "a, again")
        #expect(record.toast.role == .success)
        #expect(record.expiresAt == 3_500)
        #expect(h.takeEvents() == ["presented 1", "presented 2", "updated 1"])
        // Moved to the newest position of its stack.
        #expect(h.machine.snapshot().toasts.map(\.id) == [2, 1])
        #expect(h.machine.count == 2)
    }

    /// The scheduler never gives id 0, but a hand-edited state file may
    /// hold it: restored, such a toast lives, is found and ends like any.
    @Test func aRestoredToastWithIDZeroLivesAndEnds() {
        let record = ToastRecord(id: 0, toast: toast("zero", reuseID: "z"), state: .queued, repeatCount: 1, createdAt: 0)
        var h = SchedulerHarness()
        h.machine = SchedulerStateMachine(restoring: .init(records: [record], nextID: 1))
        #expect(h.machine.record(0)?.toast.message == "zero")
        #expect(h.machine.record(for: .reuseID("z", scene: "default"))?.id == 0)
        let other = h.add(toast("other"))
        #expect(other == 1)
        h.send(.remove(.id(0)))
        #expect(h.machine.record(0) == nil)
        #expect(h.machine.count == 1)
    }

    /// The store's ids are unique (its primary key), but a state built by
    /// hand may repeat one: the restore keeps the first, once, and does not trap.
    @Test func aRestoredStateWithARepeatedIDKeepsItsFirst() {
        let first = ToastRecord(id: 4, toast: toast("first"), state: .queued, repeatCount: 1, createdAt: 0)
        let second = ToastRecord(id: 4, toast: toast("second"), state: .queued, repeatCount: 1, createdAt: 0)
        let machine = SchedulerStateMachine(restoring: .init(records: [first, second], nextID: 5))
        #expect(machine.count == 1)
        #expect(machine.record(4)?.toast.message == "first")
        #expect(machine.snapshot().toasts.map(\.id) == [4])
        #expect(machine.snapshot().stacks.map(\.queued) == [1])
    }

    /// With every identity filed under one hash, all but the first go to
    /// the index's overflow table: a re-add or an update by reuse id must
    /// still find its own toast, never the one checked under the hash.
    @Test func collidingIdentitiesStillFindTheirOwnToast() {
        var h = SchedulerHarness()
        h.machine = SchedulerStateMachine(configuration: SchedulerConfiguration(), identityHash: { _ in 7 })
        let a = h.add(toast("a", reuseID: "a"))
        let b = h.add(toast("b", reuseID: "b"))
        let c = h.add(toast("c"))
        guard case .success(.added(let again, deduped: true, replaced: nil)) = h.send(.add(toast("b, again", reuseID: "b"))).reply else {
            Issue.record("expected b to be deduped")
            return
        }
        #expect(again.id == b)
        #expect(again.toast.message == "b, again")
        guard case .success(.added(let content, deduped: true, replaced: nil)) = h.send(.add(toast("c"))).reply else {
            Issue.record("expected c to be deduped")
            return
        }
        #expect(content.id == c)
        h.send(.update(.reuseID("a", scene: "default"), ToastPatch(message: "a, updated")))
        #expect(h.machine.record(a)?.toast.message == "a, updated")
        #expect(h.machine.record(b)?.toast.message == "b, again")
        #expect(h.machine.record(for: .reuseID("b", scene: "default"))?.id == b)
        #expect(h.machine.count == 3)
    }

    /// `state(of:)` answers as the record would, for shown, queued
    /// (packed) and ended toasts, without unpacking.
    @Test func stateOfAToastAgreesWithItsRecord() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        let shown = h.add(toast("shown", duration: .short))
        let queued = h.add(toast("queued"))
        #expect(h.machine.state(of: shown) == .shown)
        #expect(h.machine.state(of: queued) == .queued)
        #expect(h.machine.state(of: queued) == h.machine.record(queued)?.state)
        h.advance(by: 2_000)
        #expect(h.machine.state(of: shown) == nil)
        #expect(h.machine.record(shown) == nil)
        #expect(h.machine.state(of: queued) == .shown)
        #expect(h.machine.state(of: 999) == nil)
    }

    @Test func reAddingAQueuedToastUpdatesItWhereItWaits() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("shown", duration: .short))
        let waiting = h.add(toast("wait", reuseID: "w"))
        h.add(toast("later"))
        h.send(.add(toast("wait (2)", reuseID: "w")))
        #expect(h.queued == [waiting, 3])
        #expect(h.machine.record(waiting)?.repeatCount == 1)
        #expect(h.machine.record(waiting)?.toast.message == "wait (2)")
        h.send(.add(toast("wait (2)", reuseID: "w")))
        #expect(h.machine.record(waiting)?.repeatCount == 2, "the same text again is a repeat")
        h.advance(by: 2_000)
        #expect(h.shown == [waiting])
    }

    @Test func withoutReuseIDsTitleAndMessageMakeTheIdentity() {
        var h = SchedulerHarness()
        var a = toast("Disk full")
        a.title = "Backup"
        h.add(a)
        h.add(a)
        var other = a
        other.title = "Sync"
        h.add(other)
        h.add(toast("Disk full", reuseID: "disk"))
        #expect(h.takeEvents() == ["presented 1", "updated 1", "presented 2", "presented 3"])
    }

    @Test func identityIsScopedToAScene() {
        var h = SchedulerHarness()
        h.add(toast("x", reuseID: "r"))
        h.add(toast("x", scene: "sheet", reuseID: "r"))
        #expect(h.takeEvents() == ["presented 1", "presented 2"])
    }

    @Test func reAddingInAnotherAlignmentReplacesTheToast() {
        var h = SchedulerHarness()
        h.add(toast("progress", alignment: .center, reuseID: "job", progress: .indeterminate))
        let transition = h.send(.add(toast("done", role: .success, alignment: .bottom, reuseID: "job")))
        guard case .success(.added(let record, deduped: false, replaced: 1?)) = transition.reply else {
            Issue.record("expected a replacement, got \(transition.reply)")
            return
        }
        #expect(record.id == 2)
        #expect(h.takeEvents() == ["presented 1", "dismissed 1 replaced", "presented 2"])
    }

    // MARK: Update

    @Test func updateByIDOrReuseIDChangesFieldsAndEmitsUpdated() {
        var h = SchedulerHarness()
        let id = h.add(toast("copying", reuseID: "copy", progress: .fraction(0.1)))
        h.send(.update(.id(id), ToastPatch(progress: .fraction(0.5))))
        h.send(.update(.reuseID("copy", scene: "default"), ToastPatch(title: .some("Files"), progress: .fraction(0.9))))
        let record = h.machine.record(id)!
        #expect(record.toast.progress == .fraction(0.9))
        #expect(record.toast.title == "Files")
        #expect(record.repeatCount == 1)
        #expect(h.takeEvents() == ["presented 1", "updated 1", "updated 1"])
    }

    @Test func anUpdateThatSetsADurationRestartsTheTimerAndOneThatDoesNotKeepsIt() {
        var h = SchedulerHarness()
        let id = h.add(toast("x", duration: .short))
        h.advance(by: 1_000)
        h.send(.update(.id(id), ToastPatch(message: "y")))
        #expect(h.machine.record(id)?.expiresAt == 2_000)
        h.send(.update(.id(id), ToastPatch(duration: .some(.longer))))
        #expect(h.machine.record(id)?.expiresAt == 6_000)
        h.send(.update(.id(id), ToastPatch(duration: .some(.indefinite))))
        #expect(h.machine.record(id)?.expiresAt == nil)
        #expect(h.machine.armedDeadline == nil)
    }

    @Test func updateErrors() {
        var h = SchedulerHarness()
        h.add(toast("a"))
        let b = h.add(toast("b"))
        #expect(h.send(.update(.id(99), ToastPatch(message: "z"))).reply.error?.code == .notFound)
        #expect(
            h.send(.update(.reuseID("none", scene: "default"), ToastPatch(message: "z"))).reply.error?.code == .notFound
        )
        // Renaming b to a would make two live toasts the same toast.
        #expect(h.send(.update(.id(b), ToastPatch(message: "a"))).reply.error?.code == .conflict)
        #expect(h.send(.update(.id(b), ToastPatch(progress: .fraction(2)))).reply.error?.code == .invalidField)
        #expect(h.machine.record(b)?.toast.message == "b")
    }

    // MARK: Remove, dismiss, invoke

    @Test func removingAWaitingToastCancelsItAndRemovingAShownOneDismissesIt() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        let shown = h.add(toast("a"))
        let waiting = h.add(toast("b"))
        let next = h.add(toast("c"))
        h.send(.remove(.id(waiting)))
        h.send(.remove(.id(shown)))
        #expect(h.takeEvents() == ["presented 1", "queued 2", "queued 3", "cancelled 2 removed", "dismissed 1 removed", "presented 3"])
        #expect(h.shown == [next])
        #expect(h.send(.remove(.id(shown))).reply.error?.code == .notFound)
    }

    @Test func dismissIsRefusedForANonDismissibleToast() {
        var h = SchedulerHarness()
        let hud = h.add(toast("working", alignment: .center, progress: .indeterminate, dismissible: false))
        let error = h.send(.dismiss(.id(hud))).reply.error
        #expect(error?.code == .notDismissible)
        #expect(h.machine.record(hud) != nil)
        // The sender can still remove it.
        h.send(.remove(.id(hud)))
        #expect(h.machine.record(hud) == nil)
    }

    @Test func dismissEndsAToastWithTheUserReason() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("a"))
        h.add(toast("b"))
        h.send(.dismiss(.id(2)))
        h.send(.dismiss(.reuseID("x", scene: "default")))
        h.send(.dismiss(.id(1)))
        #expect(h.takeEvents() == ["presented 1", "queued 2", "cancelled 2 user", "dismissed 1 user"])
    }

    @Test func invokeEmitsTheActionThenDismisses() {
        var h = SchedulerHarness()
        let id = h.add(toast("Deleted 3 files", actions: [ToastAction(id: "undo", label: "Undo")]))
        let missing = h.send(.invoke(.id(id), actionID: "redo")).reply.error
        #expect(missing?.code == .unknownAction)
        #expect(missing?.message.contains("undo") == true)
        h.send(.invoke(.id(id), actionID: "undo"))
        #expect(h.takeEvents() == ["presented 1", "action 1 undo", "dismissed 1 action"])
    }

    // MARK: Clear

    @Test func clearEndsAScopeAndKeepsNonDismissibleToastsUnlessForced() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("top"))
        h.add(toast("top 2"))
        h.add(toast("hud", alignment: .center, progress: .indeterminate, dismissible: false))
        h.add(toast("other scene", scene: "sheet"))
        _ = h.takeEvents()

        let scoped = h.send(.clear(ClearScope(scene: "default", alignment: .top)))
        #expect(scoped.reply == .success(.cleared(count: 2, kept: 0)))
        #expect(h.takeEvents() == ["dismissed 1 cleared", "cancelled 2 cleared"])

        let scene = h.send(.clear(ClearScope(scene: "default")))
        #expect(scene.reply == .success(.cleared(count: 0, kept: 1)))

        let everything = h.send(.clear(ClearScope(force: true)))
        #expect(everything.reply == .success(.cleared(count: 2, kept: 0)))
        #expect(h.machine.count == 0)
    }

    // MARK: Pause

    @Test func pauseHoldsNewToastsBackAndResumeShowsThemInOrder() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.add(toast("before", duration: .short))
        h.send(.pause(level: nil))
        h.send(.pause(level: nil))
        h.add(toast("bottom", alignment: .bottom))
        h.add(toast("top"))
        h.add(toast("hud", alignment: .center))
        h.advance(by: 2_000)
        #expect(h.shown.isEmpty)
        h.send(.resume)
        #expect(
            h.takeEvents() == [
                "presented 1", "paused", "queued 2", "queued 3", "queued 4", "dismissed 1 expired", "resumed",
                "presented 2", "presented 3", "presented 4",
            ]
        )
        #expect(h.machine.isPaused == false)
    }

    // MARK: Limits

    @Test func limitsAreEnforcedInTotalAndPerSource() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1, maxToasts: 4, maxToastsPerSource: 2))
        h.add(toast("1", source: "flood"))
        h.add(toast("2", source: "flood"))
        #expect(h.send(.add(toast("3", source: "flood"))).reply.error?.code == .sourceQueueFull)
        h.add(toast("4", source: "calm"))
        h.add(toast("5", source: "other"))
        #expect(h.send(.add(toast("6", source: "last"))).reply.error?.code == .queueFull)
        // A dedupe adds nothing, so it is still accepted at the limit.
        #expect(h.send(.add(toast("1", source: "flood"))).reply.isSuccess)
    }

    /// Found by the fuzzer (fuzz/regressions/held-toast-raised-by-a-re-add):
    /// a held toast whose level a re-add raises must break through the pause
    /// at once, not wait while its stack has a free slot.
    @Test func aReAddThatRaisesAHeldToastsLevelShowsIt() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.send(.pause(level: nil))
        let id = h.add(Toast(message: "xxxx"))
        #expect(h.queued == [id])
        var urgent = Toast(message: "xxxx")
        urgent.level = 100
        h.add(urgent)
        #expect(h.shown == [id])
        #expect(h.takeEvents().suffix(2) == ["updated \(id)", "presented \(id)"])
    }

    /// The same through update: a role with a higher level breaks through.
    @Test func anUpdateToARoleThatBreaksThroughShowsTheToast() {
        var h = SchedulerHarness(SchedulerConfiguration(maxVisible: 1))
        h.send(.pause(level: nil))
        let held = h.add(Toast(message: "held"))
        let raised = h.add(Toast(message: "raised"))
        _ = h.takeEvents()
        h.send(.update(.id(raised), ToastPatch(role: .failure)))
        #expect(h.shown == [raised])
        #expect(h.queued == [held])
        #expect(h.takeEvents() == ["updated \(raised)", "presented \(raised)"])
    }
}

extension Result where Failure == ToastError {
    var error: ToastError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var isSuccess: Bool { error == nil }
}

/// Which toasts are the same toast (PROTOCOL.md 5.2): same text dedupes
/// within one sender only; a toast may opt out; a reuse id is shared.
@Suite("Dedupe identity: senders, opting out, and the repeat count")
struct DedupeIdentityTests {
    @Test("the same text from two programs is two toasts; from two runs of one program, one")
    func sendersOwnTheirText() {
        var h = SchedulerHarness()
        let first = h.add(toast("Upload failed", source: "app-one[100]"))
        let other = h.add(toast("Upload failed", source: "app-two[200]"))
        #expect(first != other, "two programs never merge")
        let again = h.add(toast("Upload failed", source: "app-one[101]"))
        #expect(again == first, "a second run of app-one is the same sender")
        #expect(h.machine.record(first)?.repeatCount == 2)
        #expect(h.machine.record(other)?.repeatCount == 1)
    }

    @Test("a source that only looks like a pid suffix is kept whole")
    func senderOfSource() {
        typealias Identity = SchedulerStateMachine.Identity
        #expect(Identity.sender(of: "toastctl[4242]") == "toastctl")
        #expect(Identity.sender(of: "make") == "make")
        #expect(Identity.sender(of: "odd[]") == "odd[]")
        #expect(Identity.sender(of: "tag[x1]") == "tag[x1]")
        #expect(Identity.sender(of: "[7]") == "")
        #expect(Identity.sender(of: nil) == "")
        #expect(Identity.sender(of: "]") == "]")
        #expect(Identity.sender(of: "x]") == "x]")
        #expect(Identity.sender(of: "a[1][2]") == "a[1]")
        #expect(Identity.sender(of: "a[1]b[22]") == "a[1]b")
        #expect(Identity.sender(of: "a[1x2]") == "a[1x2]")
        #expect(Identity.sender(of: "Übersicht – 東京[31337]") == "Übersicht – 東京")
        #expect(Identity.sender(of: "a long source name, past a small string[7]") == "a long source name, past a small string")
    }

    @Test("dedupe off: the same text again is a toast of its own, with an id of its own")
    func optedOut() {
        var h = SchedulerHarness()
        var notification = toast("Reminder", source: "dbus")
        notification.dedupe = false
        let first = h.add(notification)
        let second = h.add(notification)
        #expect(first != second)
        // A toast that dedupes is still never merged into one that does not.
        let third = h.add(toast("Reminder", source: "dbus"))
        #expect(third != first && third != second)
        #expect(h.add(toast("Reminder", source: "dbus")) == third)
    }

    @Test("a reuse id merges across senders; new text starts the count again, the same text adds to it")
    func reuseCounts() {
        var h = SchedulerHarness()
        let id = h.add(toast("Volume 40%", reuseID: "volume", source: "a"))
        h.add(toast("Volume 45%", reuseID: "volume", source: "b"))
        h.add(toast("Volume 50%", reuseID: "volume", source: "a"))
        #expect(h.machine.record(id)?.repeatCount == 1, "an OSD updated in place never reads ×3")
        h.add(toast("Volume 50%", reuseID: "volume", source: "a"))
        #expect(h.machine.record(id)?.repeatCount == 2)
    }
}
