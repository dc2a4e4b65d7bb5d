// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastConfig

/// The `[overlay]` table: read with the rest of the file, every mistake
/// reported with its line, so `toastd --check-config` catches a typo in it.
@Suite struct OverlayStyleTests {
    @Test func keysAreRead() throws {
        let text = """
            [overlay]
            font = "Noto Sans 11"
            width = 360
            position = "right"
            margin = [24, 40]
            transition = "none"
            output = "DP-1"
            [overlay.colors]
            failure = "#ff0000"
            text = "#000000"
            """
        let style = try ToastdConfig.parse(text).get().overlay
        #expect(style.font == "Noto Sans 11" && style.width == 360 && style.position == .right)
        #expect(style.margin == (24, 40) && style.transition == .none && style.output == "DP-1")
        #expect(style.colors[.failure] == 0xFF_00_00 && style.colors[.info] == 0x1E_63_B4 && style.textColor == 0)
        #expect(try ToastdConfig.parse("").get().overlay == OverlayStyle(), "no table: the defaults")
    }

    @Test func mistakesArePlaced() {
        let text = """
            [overlay]
            width = 5
            positon = "left"
            transition = "wipe"
            [overlay.colors]
            info = "blue"
            """
        guard case .failure(let invalid) = ToastdConfig.parse(text) else {
            Issue.record("accepted")
            return
        }
        let messages = invalid.problems.map(\.description)
        #expect(messages.contains { $0.hasPrefix("2:") && $0.contains("overlay.width") })
        #expect(messages.contains { $0.hasPrefix("3:") && $0.contains("unknown key") })
        #expect(messages.contains { $0.hasPrefix("4:") && $0.contains("wipe") })
        #expect(messages.contains { $0.hasPrefix("6:") && $0.contains("#rrggbb") })
    }
}
