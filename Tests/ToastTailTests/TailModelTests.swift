// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore
@testable import ToastTail

@Suite("The viewer's model")
struct TailModelTests {
    @Test func edgeStacksGrowFromTheirEdgeWithTheNewestNearestTheMiddle() {
        var model = Wire.model([])
        for id in Int64(1)...3 { model.apply(Wire.event("presented", Wire.toast(id, "top \(id)"))) }
        for id in Int64(4)...6 { model.apply(Wire.event("presented", Wire.toast(id, "bottom \(id)", alignment: "bottom"))) }
        model.apply(Wire.event("presented", Wire.toast(7, "hud", alignment: "center")))
        #expect(model.displayOrder.map(\.id) == [1, 2, 3, 7, 6, 5, 4])
    }

    @Test func aRepeatMovesAShownToastToTheNewestPlaceAndAnUpdateDoesNot() {
        var model = Wire.model([Wire.toast(1, "a"), Wire.toast(2, "b")])
        model.apply(Wire.event("updated", Wire.toast(1, "a, changed")))
        #expect(model.displayOrder.map(\.id) == [1, 2])
        #expect(model.toasts[1]?.message == "a, changed")
        model.apply(Wire.event("updated", Wire.toast(1, "a", repeatCount: 2)))
        #expect(model.displayOrder.map(\.id) == [2, 1])
    }

    @Test func queuedToastsAreCountedUntilShownOrCancelled() {
        var model = Wire.model([Wire.toast(1, "a"), Wire.toast(2, "b", shown: false), Wire.toast(3, "c", shown: false)])
        #expect(model.queuedCount(.top) == 2)
        model.apply(Wire.event("presented", Wire.toast(2, "b")))
        model.apply(Wire.event("cancelled", Wire.toast(3, "c", shown: false), reason: "removed"))
        #expect(model.queuedCount(.top) == 0)
        #expect(model.displayOrder.map(\.id) == [1, 2])
    }

    @Test func aSnapshotReplacesEverythingAndOtherScenesAreIgnored() {
        var model = Wire.model([Wire.toast(1, "a"), Wire.toast(2, "b", shown: false)], paused: true)
        #expect(model.paused)
        model.apply(Wire.event("presented", Wire.toast(9, "elsewhere", scene: "other")))
        model.apply(Wire.snapshot([Wire.toast(5, "after reconnect")]))
        #expect(model.displayOrder.map(\.id) == [5])
        #expect(model.queuedCount(.top) == 0)
        #expect(!model.paused)
        #expect(model.link == .connected)
    }

    @Test func theSelectionMovesThroughTheCardsAndFollowsTheirEnd() {
        var model = Wire.model([Wire.toast(1, "a"), Wire.toast(2, "b"), Wire.toast(3, "c", alignment: "bottom")])
        #expect(model.target?.id == 1)
        model.moveSelection(by: 1)
        model.moveSelection(by: 1)
        model.moveSelection(by: 1)
        #expect(model.target?.id == 3)
        model.apply(Wire.event("dismissed", Wire.toast(3, "c", alignment: "bottom"), reason: "user"))
        #expect(model.selected == nil)
        #expect(model.target?.id == 1)
    }

    @Test func toastTextIsSanitizedOnTheWayIn() throws {
        let model = Wire.model([Wire.toast(1, "a\u{1B}[2Jb\u{202E}c", title: "t\u{7}", actions: [("x", "go\u{9B}")])])
        let toast = try #require(model.toasts[1])
        for text in [toast.message, toast.title ?? "", toast.actions[0].label] {
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || $0.value == 0x202E })
        }
    }

    @Test(arguments: [
        (TailModel.Link.connected, "● toastd"), (.connecting, "○ connecting"),
        (.disconnected("toastd stopped", retryAt: Wire.now + 2_000), "✖ disconnected: toastd stopped, retrying in 2 s"),
    ])
    func theStatusLineShowsTheConnection(link: TailModel.Link, text: String) {
        var model = Wire.model([])
        model.link = link
        let screen = StackRenderer.render(model, .init(columns: 80, rows: 6, now: Wire.now))
        #expect(screen.lines.last?.text.hasPrefix(text) == true, "\(screen.lines.last?.text ?? "")")
    }

    @Test func colourFollowsTheFlagAndNoColor() {
        #expect(ToastTailCommand.useColor(.auto, isTerminal: true, environment: [:]))
        #expect(!ToastTailCommand.useColor(.auto, isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(ToastTailCommand.useColor(.auto, isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!ToastTailCommand.useColor(.auto, isTerminal: false, environment: [:]))
        #expect(ToastTailCommand.useColor(.always, isTerminal: false, environment: ["NO_COLOR": "1"]))
        #expect(!ToastTailCommand.useColor(.never, isTerminal: true, environment: [:]))

        let model = Wire.model([Wire.toast(1, "done", role: "success")])
        let screen = StackRenderer.render(model, .init(columns: 40, rows: 8, now: Wire.now))
        let colored = screen.lines.map { $0.encoded(color: true) }.joined()
        let plain = screen.lines.map { $0.encoded(color: false) }.joined()
        #expect(colored.contains("\u{1B}[32m"))
        #expect(!plain.contains("\u{1B}"))
    }
}
