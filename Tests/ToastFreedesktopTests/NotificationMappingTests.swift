import Testing
import ToastCore

@testable import ToastFreedesktop

@Suite("freedesktop Notify → toast")
struct NotificationMappingTests {
    func toast(_ notification: Notification) -> Toast {
        NotificationMapping.toast(for: notification, source: "dbus:1.7").0
    }

    @Test func summaryAndBodyBecomeTitleAndMessageOrTheSummaryAlone() {
        let both = toast(Notification(appName: "mail", summary: "New mail", body: "From <b>Ann</b> &amp; Bob"))
        #expect(both.title == "New mail")
        #expect(both.message == "From Ann & Bob")
        #expect(both.source == "mail")
        let summaryOnly = toast(Notification(appName: "", summary: "Just this"))
        #expect(summaryOnly.title == nil)
        #expect(summaryOnly.message == "Just this")
        #expect(summaryOnly.source == "dbus:1.7")
        #expect(toast(Notification(appName: "app", summary: " ")).message == "app")
        #expect(toast(Notification(summary: "")).message == "(no text)")
        #expect((try? toast(Notification(summary: "")).validate()) != nil)
    }

    @Test(arguments: [
        (Int32(-1), UInt8(1), ToastDuration.longer, ToastRole.info),
        (0, 1, .indefinite, .info),
        (1_500, 0, .seconds(1.5), .plain),
        (10, 1, .seconds(0.1), .info),
        (Int32.max, 1, .seconds(86_400), .info),
        (3_000, 2, .indefinite, .failure),
        (-1, 2, .indefinite, .failure),
    ])
    func timeoutsAndUrgency(timeout: Int32, urgency: UInt8, duration: ToastDuration, role: ToastRole) {
        var hints = Notification.Hints()
        hints.urgency = urgency
        let mapped = toast(Notification(summary: "s", hints: hints, expireTimeout: timeout))
        #expect(mapped.duration == duration)
        #expect(mapped.role == role)
    }

    @Test func stackTagsAreScopedToTheAppAndValueIsProgress() {
        var hints = Notification.Hints()
        hints.stackTag = "volume"
        hints.value = 140
        let mapped = toast(Notification(appName: "pamixer", summary: "Volume", hints: hints))
        #expect(mapped.reuseID == "pamixer:volume")
        #expect(mapped.progress == .fraction(1))
    }

    @Test func actionsKeepDefaultFirstAtMostThreeAndMapOddKeys() {
        let flat = ["reply", "Reply", "open thread", "Open", "default", "Show", "mute", "Mute"]
        let (mapped, keys) = NotificationMapping.toast(for: Notification(summary: "s", actions: flat), source: "x")
        #expect(mapped.actions.map(\.id) == ["default", "reply", "a3"])
        #expect(mapped.actions.map(\.label) == ["Show", "Reply", "Open"])
        #expect(keys.toKey["a3"] == "open thread")
        #expect((try? mapped.validate()) != nil)
        // A dangling key without a label is ignored; an empty label falls back to the key.
        let (odd, _) = NotificationMapping.toast(for: Notification(summary: "s", actions: ["ok", "", "lonely"]), source: "x")
        #expect(odd.actions == [ToastAction(id: "ok", label: "ok")])
    }

    @Test func longTextIsClippedAtACharacterBoundary() {
        let body = String(repeating: "é", count: 1_000_000)
        let mapped = toast(Notification(summary: String(repeating: "🍞", count: 100), body: body))
        #expect(mapped.message.utf8.count <= ToastLimits.messageBytes)
        #expect(mapped.message.hasSuffix("…"))
        #expect(mapped.title!.utf8.count <= ToastLimits.titleBytes)
        #expect((try? mapped.validate()) != nil)
    }

    @Test func markupIsStrippedAndEntitiesDecoded() {
        #expect(NotificationMapping.plainText(#"<a href="x">link</a> &lt;3 &#65;&#x42; &bogus; a & b <img src="y"/>"#) == "link <3 AB &bogus; a & b ")
    }

    @Test func imageDataMustAddUp() {
        #expect(NotificationMapping.validateImage(width: 2, height: 2, rowstride: 8, hasAlpha: true, bitsPerSample: 8, channels: 4, bytes: 16) == nil)
        #expect(NotificationMapping.validateImage(width: 2, height: 2, rowstride: 6, hasAlpha: false, bitsPerSample: 8, channels: 3, bytes: 12) == nil)
        #expect(NotificationMapping.validateImage(width: 2, height: 2, rowstride: 4, hasAlpha: true, bitsPerSample: 8, channels: 4, bytes: 16) != nil)
        #expect(NotificationMapping.validateImage(width: 2, height: 2, rowstride: 8, hasAlpha: true, bitsPerSample: 8, channels: 3, bytes: 16) != nil)
        #expect(NotificationMapping.validateImage(width: 2, height: 2, rowstride: 8, hasAlpha: true, bitsPerSample: 8, channels: 4, bytes: 10) != nil)
        #expect(NotificationMapping.validateImage(width: -1, height: 2, rowstride: 8, hasAlpha: true, bitsPerSample: 8, channels: 4, bytes: 16) != nil)
        #expect(NotificationMapping.validateImage(width: 1 << 30, height: 1 << 30, rowstride: 1 << 30, hasAlpha: true, bitsPerSample: 8, channels: 4, bytes: 16) != nil)
    }

    /// Every end reason has its spec reason, checked against the table in
    /// PROTOCOL.md ("The freedesktop bridge"); events that end nothing have none.
    @Test func endReasonsBecomeCloseReasons() {
        let record = ToastRecord(id: 7, toast: Toast(message: "m"), state: .shown, repeatCount: 1, createdAt: 0)
        let dismissed: [DismissReason: UInt32] = [
            .expired: 1, .user: 2, .action: 2, .cleared: 2, .removed: 3, .replaced: 4, .invalidated: 4,
        ]
        let cancelled: [CancelReason: UInt32] = [
            .user: 2, .action: 2, .cleared: 2, .removed: 3, .superseded: 4, .invalidated: 4, .sourceEnded: 4,
            .replaced: 4, .dropped: 4,
        ]
        #expect(Set(dismissed.keys) == Set(DismissReason.allCases))
        #expect(Set(cancelled.keys) == Set(CancelReason.allCases))
        for (reason, code) in dismissed {
            #expect(NotificationMapping.closeReason(for: .dismissed(record, reason)) == code, "dismissed, \(reason)")
        }
        for (reason, code) in cancelled {
            #expect(NotificationMapping.closeReason(for: .cancelled(record, reason)) == code, "cancelled, \(reason)")
        }
        for kind: ToastEvent.Kind in [.queued(record), .presented(record), .updated(record), .action(record, actionID: "a"), .resumed] {
            #expect(NotificationMapping.closeReason(for: kind) == nil)
        }
    }

    /// The requests a client writes read back to what was meant.
    @Test func requestsWrittenByTheEncoderDecodeToTheSameValues() throws {
        var hints = Notification.Hints()
        hints.stackTag = "t"
        hints.value = 30
        let (mapped, _) = NotificationMapping.toast(
            for: Notification(appName: "a", summary: "S", body: "B", actions: ["default", "Go"], hints: hints, expireTimeout: 2_500),
            source: "x"
        )
        let add: JSONValue = ["op": "add", "toast": WireEncoder.requestToast(mapped)]
        #expect(try WireDecoder.decode(line: add.serialized).get().request == .command(.add(mapped)))
        let patch = NotificationMapping.patch(for: mapped)
        let update = WireEncoder.updateRequest(id: 9, patch: patch)
        #expect(try WireDecoder.decode(line: update.serialized).get().request == .command(.update(.id(9), patch)))
        var cleared = patch
        cleared.title = .some(nil)
        cleared.duration = .some(nil)
        #expect(try WireDecoder.decode(line: WireEncoder.updateRequest(id: 9, patch: cleared).serialized).get().request == .command(.update(.id(9), cleared)))
    }
}
