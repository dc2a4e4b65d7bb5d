// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// What one card shows, worked out from its toast: pure, so that a test
/// can check it without a screen.
public struct CardContent: Equatable, Sendable {
    public enum Icon: Equatable, Sendable {
        /// The role's glyph, or the toast's emoji.
        case glyph(String)
        case file(String)
        case pixels(width: Int, height: Int, rgba: [UInt8])
    }

    public var id: ToastID
    public var role: ToastRole
    public var icon: Icon
    public var spinner: Bool
    public var title: String?
    public var message: String
    /// The message as Pango markup, when the toast came with markup.
    public var markup: String?
    /// 0...1, when the toast shows a determinate progress.
    public var progress: Double?
    public var repeatCount: Int
    /// "4s", while the toast counts down.
    public var countdown: String?
    public var notice: String?
    public var closeButton: Bool
    /// The buttons: every action but `default`, which a click on the body invokes.
    public var buttons: [ToastAction]

    /// The card for `record` at `now` (Unix milliseconds, as toastd's instants read).
    public init(record: ToastRecord, now: Int64, notice: String? = nil, icons: inout IconTheme) {
        let toast = record.toast
        id = record.id
        role = toast.role
        spinner = toast.progress == .indeterminate
        title = toast.title.map(OverlayModel.drawable)
        message = OverlayModel.drawable(toast.message)
        markup = toast.markup.map(PangoMarkup.from)
        if case .fraction(let value) = toast.progress { progress = min(max(value, 0), 1) }
        repeatCount = record.repeatCount
        countdown = record.expiresAt.map { Self.countdown(milliseconds: $0 - now) }
        self.notice = notice
        closeButton = toast.closeButton
        buttons = toast.actions.filter { $0.id != "default" }
        icon = Self.icon(of: toast, icons: &icons)
    }

    /// The image over the icon (the freedesktop order: image-data, image-path, app_icon);
    /// an icon is a path, a theme's icon name, or an emoji drawn as text.
    static func icon(of toast: Toast, icons: inout IconTheme) -> Icon {
        switch toast.image {
        case .pixels(let width, let height, let rgba)?: return .pixels(width: width, height: height, rgba: rgba)
        case .path(let path)?: if let file = file(path) { return .file(file) }
        case nil: break
        }
        if let icon = toast.icon, !icon.isEmpty {
            if let file = file(icon) { return .file(file) }
            if let file = icons.file(for: icon) { return .file(file) }
            if !IconTheme.isName(icon), icon.count <= 4 { return .glyph(OverlayModel.drawable(icon)) }
        }
        return .glyph(OverlayModel.style(of: toast.role).glyph)
    }

    /// A path the toast named: absolute, or a file:// URI.
    static func file(_ text: String) -> String? {
        var path = Substring(text)
        if path.hasPrefix("file://") { path = path.dropFirst(7) }
        guard path.hasPrefix("/"), !path.contains("\0"), path.utf8.count < 4096 else { return nil }
        return path.contains("%") ? percentDecoded(path) : String(path)
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == 0x25, utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16), value != 0 {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// In how many milliseconds the countdown's rounded-up seconds change;
    /// nil once its time is past (it says 0s and waits for toastd's event:
    /// the two clocks differ a little, and a past time must not wake it every
    /// millisecond).
    public static func nextCountdownChange(milliseconds left: Int64) -> Int64? {
        left > 0 ? (left - 1) % 1_000 + 1 : nil
    }

    /// "4s", "2m", "1h": the time left, rounded up (a toast at 0.2 s left still says 1s).
    public static func countdown(milliseconds: Int64) -> String {
        let seconds = max(0, (milliseconds + 999) / 1000)
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\((seconds + 59) / 60)m" }
        return "\((seconds + 3599) / 3600)h"
    }
}
