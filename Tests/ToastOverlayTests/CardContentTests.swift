// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastOverlay
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// What a card shows, worked out from its toast without a screen.
@Suite struct CardContentTests {
    var icons = IconTheme(theme: "Adwaita", environment: ["XDG_DATA_DIRS": "/nonexistent"])

    func record(_ toast: Toast, expiresAt: Int64? = nil, repeatCount: Int = 1) -> ToastRecord {
        ToastRecord(id: 7, toast: toast, state: .shown, repeatCount: repeatCount, createdAt: 0, presentedAt: 0, expiresAt: expiresAt)
    }

    @Test mutating func theCountdownRoundsUpAndTheDefaultActionIsNoButton() {
        let toast = Toast(
            message: "Delete the originals?", role: .warning,
            actions: [ToastAction(id: "default", label: "Open"), ToastAction(id: "delete", label: "Delete"), ToastAction(id: "keep", label: "Keep")]
        )
        let card = CardContent(record: record(toast, expiresAt: 10_000, repeatCount: 3), now: 5_800, icons: &icons)
        #expect(card.countdown == "5s")
        #expect(card.buttons.map(\.id) == ["delete", "keep"])
        #expect(card.repeatCount == 3)
        #expect(card.icon == .glyph("⚠"))
        #expect(CardContent(record: record(toast), now: 0, icons: &icons).countdown == nil, "no expiry, no countdown")
        #expect(CardContent.countdown(milliseconds: 200) == "1s")
        #expect(CardContent.countdown(milliseconds: 90_000) == "2m")
        #expect(CardContent.countdown(milliseconds: -5) == "0s")
        // The next redraw: when the rounded-up second changes; none once past (toastd's event ends it).
        #expect(CardContent.nextCountdownChange(milliseconds: 4_200) == 200)
        #expect(CardContent.nextCountdownChange(milliseconds: 4_000) == 1_000)
        #expect(CardContent.nextCountdownChange(milliseconds: 1) == 1)
        #expect(CardContent.nextCountdownChange(milliseconds: 0) == nil)
        #expect(CardContent.nextCountdownChange(milliseconds: -3_000) == nil)
    }

    @Test mutating func progressAndSpinner() {
        let bar = CardContent(record: record(Toast(message: "x", progress: .fraction(1.7))), now: 0, icons: &icons)
        #expect(bar.progress == 1 && !bar.spinner)
        let spinner = CardContent(record: record(Toast(message: "x", progress: .indeterminate)), now: 0, icons: &icons)
        #expect(spinner.spinner && spinner.progress == nil)
    }

    @Test mutating func iconsAreImagesFilesThemeNamesOrEmoji() throws {
        // The image wins over the icon, as freedesktop orders them.
        var toast = Toast(message: "x", icon: "🍞")
        #expect(CardContent(record: record(toast), now: 0, icons: &icons).icon == .glyph("🍞"))
        toast.image = .pixels(width: 1, height: 1, rgba: [1, 2, 3, 4])
        #expect(CardContent(record: record(toast), now: 0, icons: &icons).icon == .pixels(width: 1, height: 1, rgba: [1, 2, 3, 4]))
        toast.image = .path("file:///tmp/a%20b.png")
        #expect(CardContent(record: record(toast), now: 0, icons: &icons).icon == .file("/tmp/a b.png"))
        // A theme name, found in a theme laid out as the specification says.
        let icons = try TemporaryDirectory(prefix: "toast-overlay-icons")
        defer { icons.remove() }
        let root = icons.path
        for directory in [root + "/hicolor", root + "/hicolor/48x48", root + "/hicolor/48x48/apps"] { mkdir(directory, 0o755) }
        close(creat(root + "/hicolor/48x48/apps/org.example.Mail.png", 0o644))
        // An XDG_DATA_DIRS entry holds an `icons` directory: a link to the root.
        let dataDirectory = try TemporaryDirectory(prefix: "toast-overlay-data")
        defer { dataDirectory.remove() }
        let data = dataDirectory.path
        symlink(root, data + "/icons")
        var theme = IconTheme(theme: "Adwaita", environment: ["XDG_DATA_HOME": "/nonexistent", "XDG_DATA_DIRS": data])
        let named = CardContent(record: record(Toast(message: "x", icon: "org.example.Mail")), now: 0, icons: &theme)
        #expect(named.icon == .file(data + "/icons/hicolor/48x48/apps/org.example.Mail.png"))
        // A name no theme has: the role's glyph, never the name as text.
        let missing = CardContent(record: record(Toast(message: "x", icon: "no-such-icon", role: .success)), now: 0, icons: &theme)
        #expect(missing.icon == .glyph("✔"))
        #expect(!IconTheme.isName("../../etc/passwd") && !IconTheme.isName(".hidden") && IconTheme.isName("mail-unread"))
    }

    @Test mutating func textIsPlainUnlessTheToastCameWithMarkup() {
        var toast = Toast(message: "<b>not bold</b> \u{1B}[31m", title: "<i>x</i>")
        let plain = CardContent(record: record(toast), now: 0, icons: &icons)
        #expect(plain.markup == nil)
        #expect(plain.message == "<b>not bold</b> [31m", "control characters dropped, the text kept")
        toast.markup = "<b>bold</b> & <a href=\"https://x\">link</a>"
        #expect(CardContent(record: record(toast), now: 0, icons: &icons).markup == "<b>bold</b> &amp; <span underline=\"single\">link</span>")
    }
}

/// Freedesktop body markup to Pango markup: only the spec's tags reach Pango.
@Suite struct PangoMarkupTests {
    @Test func tagsAreClosedInOrderAndEverythingElseEscaped() {
        #expect(PangoMarkup.from("<b><i>x</b>y</i>") == "<b><i>x</i></b>y")
        #expect(PangoMarkup.from("</u>stray") == "stray")
        #expect(PangoMarkup.from("<span foreground=\"red\">x</span>") == "&lt;span foreground=&quot;red&quot;&gt;x&lt;/span&gt;")
        #expect(PangoMarkup.from("<img src=\"/etc/passwd\" alt=\"a &lt;pic&gt;\"/>") == "a &lt;pic&gt;")
        #expect(PangoMarkup.from("<b>unclosed") == "<b>unclosed</b>")
        #expect(PangoMarkup.from("I <3 toasts; load < 50%") == "I &lt;3 toasts; load &lt; 50%")
    }
}

/// What a click asks toastd to do.
@Suite struct ClickPolicyTests {
    func record(_ toast: Toast) -> ToastRecord { ToastRecord(id: 3, toast: toast, state: .shown, repeatCount: 1, createdAt: 0) }

    @Test func buttonsBodyAndClose() {
        let actions = [ToastAction(id: "default", label: "Open"), ToastAction(id: "reply", label: "Reply")]
        let withDefault = record(Toast(message: "x", closeButton: true, actions: actions))
        #expect(ClickPolicy.outcome(of: .button(0), on: withDefault) == .invoke(3, action: "reply"))
        #expect(ClickPolicy.outcome(of: .button(1), on: withDefault) == .nothing)
        #expect(ClickPolicy.outcome(of: .body, on: withDefault) == .invoke(3, action: "default"))
        #expect(ClickPolicy.outcome(of: .close, on: withDefault) == .dismiss(3))
        let plain = record(Toast(message: "x"))
        #expect(ClickPolicy.outcome(of: .body, on: plain) == .dismiss(3))
        let sticky = record(Toast(message: "x", dismissible: false, closeButton: true))
        #expect(ClickPolicy.outcome(of: .body, on: sticky) == .notice(3, ClickPolicy.notDismissible))
        #expect(ClickPolicy.outcome(of: .close, on: sticky) == .notice(3, ClickPolicy.notDismissible))
        #expect(ClickPolicy.request(.dismiss(3)) == .command(.dismiss(.id(3))))
        #expect(ClickPolicy.request(.notice(3, "x")) == nil)
    }
}
