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
