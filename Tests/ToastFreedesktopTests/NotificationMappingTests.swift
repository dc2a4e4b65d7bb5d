// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastFreedesktop

@Suite("freedesktop Notify → toast")
struct NotificationMappingTests {
    func toast(_ notification: Notification) -> Toast {
        NotificationMapping.toast(for: notification, owner: notification.appName.isEmpty ? ":1.7" : notification.appName, source: "dbus:1.7").0
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

    @Test func actionsAreKeptWholeInOrderAndOddKeysMapped() {
        let flat = ["reply", "Reply", "open thread", "Open", "default", "", "mute", "Mute"]
        let (mapped, keys) = NotificationMapping.toast(for: Notification(summary: "s", actions: flat), owner: "x", source: "x")
        #expect(mapped.actions.map(\.id) == ["reply", "a2", "default", "mute"])
        #expect(mapped.actions.map(\.label) == ["Reply", "Open", "default", "Mute"], "default keeps its key: it is the body's click")
        #expect(keys.toKey["a2"] == "open thread")
        #expect((try? mapped.validate()) != nil)
        // A dangling key without a label is ignored; an empty label falls back to the key.
        let (odd, _) = NotificationMapping.toast(for: Notification(summary: "s", actions: ["ok", "", "lonely"]), owner: "x", source: "x")
        #expect(odd.actions == [ToastAction(id: "ok", label: "ok")])
        // Ten actions, all kept; past the bound, the first sixteen.
        let ten = (1...10).flatMap { ["k\($0)", "Label \($0)"] }
        #expect(NotificationMapping.toast(for: Notification(summary: "s", actions: ten), owner: "x", source: "x").0.actions.count == 10)
        let forty = (1...40).flatMap { ["k\($0)", "L"] }
        #expect(NotificationMapping.toast(for: Notification(summary: "s", actions: forty), owner: "x", source: "x").0.actions.count == ToastLimits.maxActions)
    }

    /// Each Notify is a notification of its own; a stack tag replaces only
    /// the same owner's; the hints are kept for the rules.
    @Test func identityAndHints() {
        var hints = Notification.Hints()
        hints.category = "email.arrived"
        hints.desktopEntry = "org.gnome.Evolution"
        hints.soundName = "message-new-email"
        hints.urgency = 2
        let mapped = toast(Notification(appName: "evolution", appIcon: "mail-unread", summary: "Mail", hints: hints))
        #expect(!mapped.dedupe)
        #expect(mapped.category == "email.arrived")
        #expect(mapped.desktopEntry == "org.gnome.Evolution")
        #expect(mapped.soundName == "message-new-email")
        #expect(mapped.urgency == .critical)
        #expect(mapped.icon == "mail-unread")
        var tagged = Notification.Hints()
        tagged.stackTag = "volume"
        #expect(toast(Notification(appName: "", summary: "v", hints: tagged)).reuseID == ":1.7:volume", "no app: scoped to the connection")
    }

    @Test func iconNamesPathsAndImages() {
        #expect(toast(Notification(appIcon: "/usr/share/pixmaps/a.png", summary: "s")).image == .path("/usr/share/pixmaps/a.png"))
        #expect(toast(Notification(appIcon: "file:///tmp/b.png", summary: "s")).image == .path("file:///tmp/b.png"))
        var hints = Notification.Hints()
        hints.imagePath = "/tmp/c.png"
        let both = toast(Notification(appIcon: "firefox", summary: "s", hints: hints))
        #expect(both.icon == "firefox")
        #expect(both.image == .path("/tmp/c.png"))
        hints.image = .pixels(width: 1, height: 1, rgba: [1, 2, 3, 4])
        #expect(toast(Notification(appIcon: "/tmp/a.png", summary: "s", hints: hints)).image == hints.image, "image-data first")
    }

    @Test(arguments: [
        ("I <3 toasts; load < 50%", "I <3 toasts; load < 50%", nil),
        ("if a < b and c > d", "if a < b and c > d", nil),
        ("<b>bold</b> and <i>it</i>", "bold and it", "<b>bold</b> and <i>it</i>"),
        (#"<a href="https://x.org/?a=1&amp;b=2">site</a>"#, "site", #"<a href="https://x.org/?a=1&amp;b=2">site</a>"#),
        ("<B>unclosed", "unclosed", "<b>unclosed</b>"),
        (#"<span size='xx-large'>big</span>"#, #"<span size='xx-large'>big</span>"#, nil),
        ("x</b>y", "xy", "xy"),
        (#"<img src="a.png" alt="logo"/> ok"#, "logo ok", "logo ok"),
        ("a &lt; b &amp;&amp; c", "a < b && c", nil),
        ("<b onmouseover=\"x\">t</b>", "t", "<b>t</b>"),
    ] as [(String, String, String?)])
    func bodiesKeptWhole(body: String, plain: String, markup: String?) {
        #expect(NotificationMapping.plainText(body) == plain)
        #expect(NotificationMapping.cleanMarkup(body) == markup)
        let mapped = toast(Notification(summary: "s", body: body))
        #expect(mapped.message == plain)
        #expect(mapped.markup == markup)
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
        #expect(NotificationMapping.escape("<b>&'\"") == "&lt;b&gt;&amp;&apos;&quot;")
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
            for: Notification(appName: "a", summary: "S", body: "<b>B</b>", actions: ["default", "Go"], hints: hints, expireTimeout: 2_500),
            owner: "a", source: "x"
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
