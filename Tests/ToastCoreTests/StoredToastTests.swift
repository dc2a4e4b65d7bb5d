// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// The form the store keeps a live toast in: it is a file format, and the
/// file is untrusted input.
@Suite("Stored toasts")
struct StoredToastTests {
    /// A record with every member set to something other than its default.
    static var everyMember: ToastRecord {
        var toast = Toast(
            message: "Build 42 finished ✅", title: "CI", icon: "dialog-information", role: .success, duration: .seconds(2.5),
            alignment: .bottom, scene: "build-1", reuseID: "build", progress: .fraction(0.5), dismissible: false, closeButton: true,
            actions: [ToastAction(id: "open", label: "Open")], source: "ci", cancellation: .always, invalidation: [.contextChanged]
        )
        toast.resident = true
        toast.level = 70
        toast.markup = "<b>Build</b>"
        toast.image = .pixels(width: 1, height: 1, rgba: [1, 2, 3, 4])
        toast.category = "transfer.complete"
        toast.desktopEntry = "org.example.CI"
        toast.urgency = .critical
        toast.soundName = "complete"
        toast.dedupe = false
        return ToastRecord(
            id: 7, toast: toast, state: .shown, repeatCount: 2, createdAt: 1_763_900_000_000, presentedAt: 1_763_900_000_250,
            expiresAt: 1_763_900_002_750, placement: 12
        )
    }

    static func stored(_ record: ToastRecord) -> [UInt8] { StoredToast.withBytes(of: record) { Array($0) } }

    static func read(_ bytes: [UInt8], id: ToastID = 7) throws(StoredToast.Damage) -> ToastRecord {
        try bytes.withUnsafeBufferPointer { (buffer) throws(StoredToast.Damage) in try StoredToast.record(id: id, from: buffer) }
    }

    static func damage(_ bytes: [UInt8], id: ToastID = 7) -> String? {
        do {
            _ = try read(bytes, id: id)
            return nil
        } catch {
            return error.description
        }
    }

    /// The bytes of a stored toast, pinned: reordering `ToastMember`, an
    /// enumeration's cases or a member's encoding changes them, and files
    /// written before would read wrong. Such a change needs a new
    /// `StoredToast.format` (and a migration of the stored rows).
    @Test func theStoredBytesArePinned() {
        let hex = Self.stored(Self.everyMember).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
        #expect(
            hex
                == "01"  // the format
                + "01fcc6908ad666" + "02" + "809c908ad666" + "01f49f908ad666" + "0c" + "01"  // expires, repeat, created, presented, placement, shown
                + "15" + "4275696c642034322066696e697368656420e29c85"  // message
                + "01024349" + "0112" + "6469616c6f672d696e666f726d6174696f6e"  // title, icon
                + "02" + "05" + "0000000000000440" + "02" + "07" + "6275696c642d31"  // role, duration, alignment, scene
                + "0105" + "6275696c64" + "02" + "000000000000e03f" + "00" + "01"  // reuseId, progress, dismissible, closeButton
                + "01" + "04" + "6f70656e" + "04" + "4f70656e"  // actions
                + "01026369" + "02" + "01" + "01" + "00" + "01" + "8c01"  // source, cancellation, invalidation, resident, transient, level
                + "010c" + "3c623e4275696c643c2f623e"  // markup
                + "02" + "01" + "01" + "04" + "01020304"  // image
                + "0111" + "7472616e736665722e636f6d706c657465" + "010e" + "6f72672e6578616d706c652e4349"  // category, desktopEntry
                + "03" + "0108" + "636f6d706c657465" + "00"  // urgency, soundName, dedupe
        )
    }

    @Test func aRecordComesBackEqual() throws {
        #expect(try Self.read(Self.stored(Self.everyMember)) == Self.everyMember)
        let plain = ToastRecord(id: 1, toast: Toast(message: "hello"), state: .queued, repeatCount: 1, createdAt: 0)
        #expect(try Self.read(Self.stored(plain), id: 1) == plain)
    }

    /// Every toast the scheduler's property tests make comes back equal.
    @Test func theSchedulersRecordsComeBack() async {
        await propertyCheck(count: 40, input: SchedulerPropertyTests.steps) { steps in
            var scheduler = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 2))
            for (index, step) in steps.enumerated() {
                for event in scheduler.handle(SchedulerPropertyTests.command(step), now: Int64(index) * 300).events {
                    guard let record = event.record else { continue }
                    #expect((try? Self.read(Self.stored(record), id: record.id)) == record)
                }
            }
        }
    }

    @Test func everyShorterPrefixIsDamage() {
        let bytes = Self.stored(Self.everyMember)
        for count in 0..<bytes.count {
            #expect(Self.damage(Array(bytes.prefix(count))) != nil, "\(count) of \(bytes.count) bytes")
        }
    }

    @Test func anotherFormatOrBytesLeftOverAreDamage() {
        var bytes = Self.stored(Self.everyMember)
        #expect(Self.damage(bytes + [0])?.contains("follow the last member") == true)
        bytes[0] = StoredToast.format + 1
        #expect(Self.damage(bytes)?.contains("format \(StoredToast.format + 1)") == true)
        #expect(Self.damage(Self.stored(Self.everyMember), id: 0)?.contains("id 0") == true)
    }

    @Test func aTextThatIsNotUTF8IsDamage() {
        let bytes = Self.stored(ToastRecord(id: 7, toast: Toast(message: "abcd"), state: .queued, repeatCount: 1, createdAt: 0))
        let at = bytes.indices.first { bytes[$0...].starts(with: Array("abcd".utf8)) }!
        var broken = bytes
        broken.replaceSubrange(at..<at + 4, with: [0x61, 0xC3, 0x28, 0x64])  // a lead byte without its continuation
        #expect(Self.damage(broken)?.contains("not UTF-8") == true)
        broken.replaceSubrange(at..<at + 4, with: [0x61, 0xED, 0xA0, 0x80])  // a surrogate, which UTF-8 never holds
        #expect(Self.damage(broken)?.contains("not UTF-8") == true)
    }

    /// Bytes that read as a record are still checked as an add is.
    @Test func aToastTheWireWouldRefuseIsDamage() {
        func record(_ change: (inout Toast) -> Void) -> ToastRecord {
            var toast = Toast(message: "ok")
            change(&toast)
            return ToastRecord(id: 7, toast: toast, state: .queued, repeatCount: 1, createdAt: 0)
        }
        #expect(Self.damage(Self.stored(record { $0.message = "  " }))?.contains("toast.message") == true)
        #expect(Self.damage(Self.stored(record { $0.message = String(repeating: "x", count: ToastLimits.messageBytes + 1) }))?.contains("toast.message") == true)
        #expect(Self.damage(Self.stored(record { $0.scene = "a b" }))?.contains("toast.scene") == true)
        #expect(Self.damage(Self.stored(record { $0.level = 101 }))?.contains("level 101") == true)
        #expect(Self.damage(Self.stored(record { $0.image = .pixels(width: 2, height: 2, rgba: [0]) }))?.contains("toast.image") == true)
    }

    /// Whatever a damaged disk or another program leaves, reading never
    /// traps: it is damage, or a record that passes the wire's checks.
    @Test func mutatedBytesAreDamageOrAValidToast() async {
        let original = Self.stored(Self.everyMember)
        let mutations = zip(Gen.int(in: 0...(original.count - 1)), Gen.int(in: 0...255)).array(of: 1...4)
        await propertyCheck(count: 3_000, input: mutations) { mutations in
            var bytes = original
            for (at, value) in mutations { bytes[at] = UInt8(value) }
            if let record = try? Self.read(bytes) {
                #expect(throws: Never.self) { try record.toast.validate() }
            }
        }
    }
}

/// A restart's quick read of a waiting toast (`PackedRecord.skim`): it
/// takes the common toast, and whatever it takes the full check takes too,
/// with the same stack, source, identity and numbers.
@Suite("Skimmed toasts")
struct SkimmedToastTests {
    /// A waiting toast with every member the skim reads in place set.
    static var everyPlainMember: ToastRecord {
        var record = StoredToastTests.everyMember
        record.state = .queued
        record.toast.message = "Build 42 finished"
        record.toast.image = .path("/usr/share/icons/ci.png")
        record.toast.actions = [ToastAction(id: "open", label: "Open"), ToastAction(id: "log", label: "Log")]
        return record
    }

    static func waiting(_ toast: Toast) -> ToastRecord {
        ToastRecord(id: 7, toast: toast, state: .queued, repeatCount: 1, createdAt: 1_763_900_000_000)
    }

    /// Whether the skim takes the stored `bytes`; if it does, the full
    /// check must take them too, and read the same.
    @discardableResult
    static func skimsAlike(_ bytes: [UInt8], id: ToastID = 7, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            #expect(StoredToast.skimDisagreement(id: id, from: buffer) == nil, sourceLocation: sourceLocation)
            return (try? StoredToast.row(id: id, from: buffer))?.withSkim { _ in true } ?? false
        }
    }

    @Test func theCommonToastsAreSkimmed() {
        var dedupedFromAPid = Toast(message: "disk almost full", title: "Disk", source: "df-check[4242]")
        dedupedFromAPid.dedupe = true
        var notify = Toast(message: "Volume 40%", duration: .seconds(2), reuseID: "volume", progress: .fraction(0.4), source: "notify-send[77]")
        notify.urgency = .low
        notify.category = "device"
        notify.level = 30
        let toasts = [
            Toast(message: "deploy 17 waiting for approval", title: "Deploy", role: .info, duration: .indefinite, source: "bench"),
            Toast(message: "x"), dedupedFromAPid, notify, Self.everyPlainMember.toast,
        ]
        for toast in toasts {
            #expect(Self.skimsAlike(StoredToastTests.stored(Self.waiting(toast))), "\(toast.message)")
        }
    }

    /// What the skim does not read at a glance is left to the full check,
    /// which takes it or names the damage.
    @Test func otherToastsAreLeftToTheFullCheck() {
        func toast(_ change: (inout Toast) -> Void) -> Toast {
            var toast = Toast(message: "ok", title: "t")
            change(&toast)
            return toast
        }
        let taken = [
            toast { $0.message = "Build 42 finished ✅" }, toast { $0.title = " indented" }, toast { $0.source = "\u{1}" },
            toast { $0.image = .pixels(width: 1, height: 1, rgba: [1, 2, 3, 4]) },
        ]
        for toast in taken {
            let bytes = StoredToastTests.stored(Self.waiting(toast))
            #expect(!Self.skimsAlike(bytes), "\(toast.message)")
            #expect(StoredToastTests.damage(bytes) == nil)
        }
        let refused = [
            toast { $0.title = "  " }, toast { $0.scene = "a b" }, toast { $0.duration = .seconds(0.01) },
            toast { $0.progress = .fraction(2) }, toast { $0.level = 101 }, toast { $0.image = .path("") },
            toast { $0.actions = [ToastAction(id: "a", label: "A"), ToastAction(id: "a", label: "B")] },
            toast { $0.actions = (0...ToastLimits.maxActions).map { ToastAction(id: "a\($0)", label: "A") } },
            toast { $0.reuseID = String(repeating: "r", count: ToastLimits.reuseIDBytes + 1) },
        ]
        for toast in refused {
            let bytes = StoredToastTests.stored(Self.waiting(toast))
            #expect(!Self.skimsAlike(bytes))
            #expect(StoredToastTests.damage(bytes) != nil)
        }
    }

    /// Whatever a damaged disk leaves, the skim takes only what the full
    /// check takes, and reads it alike.
    @Test func mutatedBytesAreSkimmedOnlyWhereTheFullCheckTakesThem() async {
        let original = StoredToastTests.stored(Self.everyPlainMember)
        let mutations = zip(Gen.int(in: 0...(original.count - 1)), Gen.int(in: 0...255)).array(of: 1...4)
        var skimmed = 0
        await propertyCheck(count: 3_000, input: mutations) { mutations in
            var bytes = original
            for (at, value) in mutations { bytes[at] = UInt8(value) }
            if Self.skimsAlike(bytes) { skimmed += 1 }
        }
        // Most single-byte changes of a text's letters still read.
        #expect(skimmed > 100)
    }

    /// Every waiting toast the scheduler's property tests make reads alike.
    @Test func theSchedulersWaitingToastsReadAlike() async {
        await propertyCheck(count: 40, input: SchedulerPropertyTests.steps) { steps in
            var scheduler = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 2))
            for (index, step) in steps.enumerated() {
                for event in scheduler.handle(SchedulerPropertyTests.command(step), now: Int64(index) * 300).events {
                    guard let record = event.record, record.state == .queued else { continue }
                    #expect(Self.skimsAlike(StoredToastTests.stored(record), id: record.id))
                }
            }
        }
    }
}
