// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import ToastTail

@Suite("Display width")
struct DisplayWidthTests {
    @Test(arguments: [
        ("abc", 3), ("磁盘空间不足", 12), ("，", 2), ("🚀", 2), ("👨‍👩‍👧", 2), ("🇫🇷", 2), ("❤️", 2),
        ("e\u{301}", 1), ("한국어", 6), ("ｆｕｌｌ", 8), ("\u{200B}", 0), ("⚠", 1), ("✔", 1),
    ])
    func measuresColumnsAsTerminalsDraw(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test func wrapsWordsAndBreaksWordsLongerThanALine() {
        #expect(DisplayWidth.wrap("the quick brown fox", to: 10) == ["the quick", "brown fox"])
        #expect(DisplayWidth.wrap(String(repeating: "x", count: 25), to: 10) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
        #expect(DisplayWidth.wrap("", to: 10) == [""])
    }

    @Test func neverSplitsAWideCharacterAcrossTheEdge() {
        let lines = DisplayWidth.wrap("磁盘空间不足请清理", to: 5)
        #expect(lines == ["磁盘", "空间", "不足", "请清", "理"])
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 5 })
    }

    @Test func truncatesToTheColumnsWithAnEllipsis() {
        #expect(DisplayWidth.truncate("hello world", to: 8) == "hello w…")
        #expect(DisplayWidth.truncate("磁盘空间", to: 6) == "磁盘…")
        #expect(DisplayWidth.of(DisplayWidth.truncate("磁盘空间", to: 6)) <= 6)
        #expect(DisplayWidth.truncate("short", to: 8) == "short")
    }
}
