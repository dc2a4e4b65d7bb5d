// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastctlCommands
import ToastKit

@Suite("toastctl status formats")
struct StatusFormatTests {
    static func status(
        shown: Int = 0, queued: Int = 0, level: Int = 0, paused: Int = 0, inhibitors: Int = 0, modes: [String] = [], reasons: [String] = [],
        error: String? = nil
    ) -> JSONValue {
        var members: JSONObject = [
            "inhibitorReasons": .array(reasons.map { .string($0) }),
            "shown": .int(Int64(shown)), "queued": .int(Int64(queued)), "pauseLevel": .int(Int64(level)),
            "pausedLevel": .int(Int64(paused)), "inhibitors": .int(Int64(inhibitors)), "modes": .array(modes.map { .string($0) }),
        ]
        if let error { members["configError"] = .string(error) }
        return .object(members)
    }

    @Test func waybarAltAndClassFollowTheState() {
        #expect(StatusFormat.waybar(Self.status())["alt"] == "none")
        #expect(StatusFormat.waybar(Self.status())["text"] == "")
        let live = StatusFormat.waybar(Self.status(shown: 2, queued: 1))
        #expect(live["alt"] == "notification" && live["class"] == "notification" && live["text"] == "3")
        // swaync's names: a user's pause is dnd-, an inhibitor's inhibited-.
        #expect(StatusFormat.waybar(Self.status(shown: 1, level: 50, paused: 50))["alt"] == "dnd-notification")
        #expect(StatusFormat.waybar(Self.status(level: 50, paused: 50))["alt"] == "dnd-none")
        let inhibited = StatusFormat.waybar(Self.status(level: 50, inhibitors: 2, modes: ["talk"], reasons: ["screen share", "obs"]))
        #expect(inhibited["alt"] == "inhibited-none" && inhibited["class"] == "inhibited-none")
        #expect(inhibited["tooltip"] == "0 shown, 0 waiting; do not disturb at level 50; 2 inhibitors (screen share, obs); modes: talk")
        #expect(StatusFormat.waybar(Self.status(queued: 1, level: 50, inhibitors: 1))["alt"] == "inhibited-notification")
    }

    @Test func aRefusedConfigurationAddsAClassAndTheTooltipIsMarkupSafe() {
        let line = StatusFormat.waybar(Self.status(modes: ["<b>&"], error: "/c.toml:3:1: rule 1: <bad>\nmore"))
        #expect(line["class"] == ["none", "config-error"])
        let tooltip = line["tooltip"]?.stringValue ?? ""
        #expect(tooltip.contains("modes: &lt;b&gt;&amp;"))
        #expect(tooltip.contains("configuration refused: /c.toml:3:1: rule 1: &lt;bad&gt;"))
        #expect(!tooltip.contains("more"))
    }
}
