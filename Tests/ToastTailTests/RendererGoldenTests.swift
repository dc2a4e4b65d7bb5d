// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastCore
@testable import ToastTail

/// The renderer is a pure function from (model, size, time) to screen lines;
/// these golden files pin down every card feature at a narrow and a wide
/// width. After an intended change, regenerate them with
/// `TOASTD_BLESS_GOLDEN=1 swift test --filter Golden`, then read the diff.
@Suite("Renderer golden screens")
struct RendererGoldenTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var model: TailModel
        var now: Int64 = Wire.now
        var interactive = true
        var testDescription: String { name }
    }

    static let hostileMessage =
        "title\u{1B}]0;pwned\u{7} \u{1B}[2J\u{1B}[H cursor \u{1B}[31mred\u{1B}[0m \u{202E}gnirts\u{202C} tab\there\r\nnext "
        + String(repeating: "W", count: 300) + " \u{9B}31m \u{0}"

    static let scenarios: [Scenario] = [
        Scenario(name: "roles", model: Wire.model([
            Wire.toast(1, "A plain note", role: "plain"),
            Wire.toast(2, "Heads up", role: "info"),
            Wire.toast(3, "Saved", role: "success", alignment: "bottom"),
            Wire.toast(4, "Disk almost full", role: "warning", alignment: "bottom"),
            Wire.toast(5, "Upload failed", role: "failure", alignment: "bottom"),
        ])),
        Scenario(name: "card-features", model: Wire.model([
            Wire.toast(
                1, "Build 1234 finished: all 64 tests passed on the main branch.", title: "CI", icon: "🚀",
                role: "success", duration: "long", expiresIn: 1_750, repeatCount: 3, closeButton: true,
                actions: [("undo", "Undo"), ("log", "Open log"), ("rerun", "Re-run")]
            ),
            Wire.toast(2, "Message without a title wraps onto the lines below the header", role: "info", duration: 10, expiresIn: 9_000),
        ])),
        Scenario(name: "progress", model: Wire.model([
            Wire.toast(1, "Running make", title: "toastctl run", role: "info", alignment: "center", progress: "indeterminate", dismissible: false),
            Wire.toast(2, "Uploading photos", alignment: "bottom", progress: 0.42),
        ]), now: Wire.now + 300),
        Scenario(name: "cjk-emoji", model: Wire.model([
            Wire.toast(1, "磁盘空间不足，请清理不需要的文件以释放空间。", title: "提示", icon: "💾", role: "warning"),
            Wire.toast(2, "Family 👨‍👩‍👧 flag 🇫🇷 heart ❤️ done ✅", role: "success"),
        ])),
        Scenario(name: "hostile", model: Wire.model([
            Wire.toast(1, hostileMessage, title: "\u{1B}[1mbold?\u{1B}[0m", icon: "\u{1B}P", role: "failure", actions: [("x", "\u{1B}]8;;http://evil\u{7}click")]),
        ])),
        Scenario(name: "status", model: {
            var model = Wire.model([
                Wire.toast(1, "shown"), Wire.toast(2, "waiting", shown: false), Wire.toast(3, "waiting too", shown: false),
                Wire.toast(4, "hud waiting", alignment: "center", shown: false),
            ], paused: true)
            model.notice = .init(text: "this toast is not dismissible", until: Wire.now + 1_000)
            return model
        }()),
        // A desktop notification: an icon name drawn as a glyph, ten actions
        // (the first few with their keys, then "+N"), and `default`, the
        // click on the body, never a button.
        Scenario(name: "notification", model: Wire.model([
            Wire.toast(
                1, "Ann: are you coming to the review at 3?", title: "New message", icon: "mail-unread", role: "info",
                actions: [("default", "default")] + (1...10).map { ("k\($0)", "Reply \($0)") }
            ),
            Wire.toast(2, "Volume 45%", icon: "audio-volume-medium", alignment: "center", progress: 0.45),
        ])),
        Scenario(name: "overflow", model: Wire.model((1...12).map { Wire.toast(Int64($0), "toast number \($0)", alignment: $0 % 2 == 0 ? "top" : "bottom") })),
        Scenario(name: "once", model: Wire.model([Wire.toast(1, "not interactive", closeButton: true)]), interactive: false),
    ]

    static let sizes = [(columns: 20, rows: 40), (columns: 72, rows: 24)]

    static var goldenDirectory: URL {
        URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Golden")
    }

    @Test(arguments: scenarios)
    func screensMatchTheirGoldenFiles(scenario: Scenario) throws {
        for size in Self.sizes {
            let screen = StackRenderer.render(
                scenario.model, .init(columns: size.columns, rows: size.rows, now: scenario.now, interactive: scenario.interactive)
            )
            let file = Self.goldenDirectory.appending(path: "\(scenario.name)-\(size.columns)x\(size.rows).txt")
            let text = screen.plainText + "\n"
            if ProcessInfo.processInfo.environment["TOASTD_BLESS_GOLDEN"] == "1" {
                try text.write(to: file, atomically: true, encoding: .utf8)
            }
            let golden = try String(contentsOf: file, encoding: .utf8)
            #expect(text == golden, "\(file.lastPathComponent) differs:\n\(text)")
        }
    }

    /// Whatever the toasts say, a frame has exactly the terminal's rows, no
    /// line is wider than its columns, and no control or bidi character reaches it.
    @Test(arguments: scenarios)
    func everyFrameFitsAndIsInert(scenario: Scenario) {
        for columns in [12, 13, 20, 33, 59, 60, 61, 80, 200] {
            for rows in [4, 5, 9, 24] {
                let screen = StackRenderer.render(scenario.model, .init(columns: columns, rows: rows, now: scenario.now))
                #expect(screen.lines.count == rows)
                for line in screen.lines {
                    #expect(line.width <= columns, "\(scenario.name) \(columns)x\(rows): \(line.text)")
                    #expect(!line.text.unicodeScalars.contains { Self.isUnsafe($0) })
                    for span in line.spans where span.text.unicodeScalars.contains(where: Self.isUnsafe) {
                        Issue.record("unsafe span \(span.text.debugDescription)")
                    }
                }
                let encoded = screen.lines.map { $0.encoded(color: true) }.joined()
                // The only escapes in the output are the renderer's own SGR sequences.
                let escapes = encoded.split(separator: "\u{1B}", omittingEmptySubsequences: true).dropFirst(encoded.hasPrefix("\u{1B}") ? 0 : 1)
                #expect(escapes.allSatisfy { $0.first == "[" && $0.dropFirst().prefix { $0 != "m" }.allSatisfy { $0.isNumber || $0 == ";" } })
            }
        }
    }

    @Test func theCountdownShrinksWithTime() {
        let model = Wire.model([Wire.toast(1, "tick", duration: "long", expiresIn: 3_500)])
        func heavy(at now: Int64) -> Int {
            let screen = StackRenderer.render(model, .init(columns: 40, rows: 8, now: now, interactive: false))
            let border = screen.lines.first { $0.text.contains("╰") }
            return border?.text.filter { $0 == "━" }.count ?? -1
        }
        #expect(heavy(at: Wire.now) == 38)
        #expect(heavy(at: Wire.now + 1_750) == 19)
        #expect(heavy(at: Wire.now + 3_500) == 0)
        #expect(StackRenderer.animates(model, now: Wire.now))
        #expect(!StackRenderer.animates(Wire.model([Wire.toast(1, "still")]), now: Wire.now))
    }

    @Test func theSpinnerTurnsWithTime() {
        let model = Wire.model([Wire.toast(1, "busy", alignment: "center", progress: "indeterminate")])
        let frames = Set((0..<10).map { step in
            StackRenderer.render(model, .init(columns: 40, rows: 8, now: Wire.now + Int64(step) * 100)).plainText
        })
        #expect(frames.count == 10)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x200E || scalar.value == 0x200F
    }
}
