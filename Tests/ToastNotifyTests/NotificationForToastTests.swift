// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastFreedesktop
import ToastProtocol

@testable import ToastNotify

/// toast-notify's mapping of a toast to the notifier's Notify, in process.
@Suite("toast-notify: a toast as the notifier shows it")
struct NotificationForToastTests {
    static func record(_ toast: Toast, expiresAt: Int64? = nil) -> ToastRecord {
        ToastRecord(id: 7, toast: toast, state: .shown, repeatCount: 1, createdAt: 1_000, presentedAt: 1_000, expiresAt: expiresAt, placement: 0)
    }

    @Test("the title is the summary and the message the body; without a title the message is the summary")
    func summaryAndBody() {
        let titled = NotifyMirror.notification(for: Self.record(Toast(message: "all green", title: "Build")), replacing: 0, time: nil)
        #expect(titled.summary == "Build")
        #expect(titled.body == "all green")
        let plain = NotifyMirror.notification(for: Self.record(Toast(message: "saved")), replacing: 4, time: nil)
        #expect(plain.summary == "saved")
        #expect(plain.body == "")
        #expect(plain.replacesID == 4)
    }

    @Test("progress is the value hint; actions go as key and label; the expiry is what is left of its life")
    func hints() {
        var toast = Toast(message: "copying", progress: .fraction(0.404))
        toast.actions = [ToastAction(id: "stop", label: "Stop"), ToastAction(id: "hide", label: "Hide")]
        let notification = NotifyMirror.notification(for: Self.record(toast, expiresAt: 5_000), replacing: 0, time: 3_500)
        #expect(notification.hints.value == 40)
        #expect(notification.actions == ["stop", "Stop", "hide", "Hide"])
        #expect(notification.expireTimeout == 1_500)
        let forever = NotifyMirror.notification(for: Self.record(Toast(message: "hud")), replacing: 0, time: 3_500)
        #expect(forever.expireTimeout == 0, "no expiry: the notifier keeps it until toastd closes it")
    }
}

@Suite("toast-notify: what a notifier is told about a toast")
struct NotifierHintsTests {
    static func record(_ toast: Toast) -> ToastRecord { NotificationForToastTests.record(toast) }

    @Test("the source is the app; role and level give the urgency, failure critical; a bus toast keeps its own")
    func appAndUrgency() {
        var toast = Toast(message: "m", role: .failure, source: "backup")
        let failure = NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil)
        #expect(failure.appName == "backup")
        #expect(failure.hints.urgency == 2)
        toast.role = .plain
        #expect(NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil).hints.urgency == 0)
        toast.role = .warning
        #expect(NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil).hints.urgency == 1)
        toast.level = 90
        #expect(NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil).hints.urgency == 2, "a must-see level")
        toast.urgency = .low
        #expect(NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil).hints.urgency == 0)
        #expect(NotifyMirror.notification(for: Self.record(Toast(message: "m")), replacing: 0, time: nil).appName == "toastd")
    }

    @Test("text is escaped for a server that reads markup, and only then")
    func escaping() {
        let toast = Toast(message: "<b>not bold</b> & <span size='xx-large'>big</span>", title: "a <i> title")
        let plain = NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil, markup: false)
        #expect(plain.body == toast.message)
        let escaped = NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil, markup: true)
        #expect(escaped.body == "&lt;b&gt;not bold&lt;/b&gt; &amp; &lt;span size=&apos;xx-large&apos;&gt;big&lt;/span&gt;")
        #expect(escaped.summary == "a <i> title", "the summary is plain text in the spec")
    }

    @Test("the reuse id is the stack tag; category and image go along; default is the body's click")
    func hints() {
        var toast = Toast(message: "Volume 40%", reuseID: "volume")
        toast.category = "device"
        toast.image = .path("/usr/share/icons/v.png")
        toast.actions = [ToastAction(id: "default", label: "default"), ToastAction(id: "mute", label: "Mute")]
        let notification = NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil)
        #expect(notification.hints.stackTag == "volume")
        #expect(notification.hints.category == "device")
        #expect(notification.hints.imagePath == "/usr/share/icons/v.png")
        #expect(notification.actions == ["default", "", "mute", "Mute"])
        toast.image = .pixels(width: 1, height: 1, rgba: [1, 2, 3, 4])
        #expect(NotifyMirror.notification(for: Self.record(toast), replacing: 0, time: nil).hints.image == toast.image)
    }
}
