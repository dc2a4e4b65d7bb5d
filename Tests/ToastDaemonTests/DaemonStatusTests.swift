// SPDX-License-Identifier: Apache-2.0
import Testing
import ToastCore

@testable import ToastDaemon

@Suite("Daemon status")
struct DaemonStatusTests {
    static let healthy = DaemonStatus(
        persistence: .durable, historyCount: 3, inhibitors: 1, knownModes: ["work"], rules: 20,
        configPath: "/c.toml", configError: nil, board: ["freedesktop": "owns the name"]
    )

    @Test func theResultAddsTheDaemonsMembersToTheSchedulers() {
        let result = Self.healthy.result(scheduler: ["shown": 2])
        #expect(result["shown"] == 2)
        #expect(result["persistence"] == "durable" && result["persistenceReason"] == nil)
        #expect(result["history"] == 3 && result["inhibitors"] == 1 && result["rules"] == 20)
        #expect(result["knownModes"] == ["work"] && result["config"] == "/c.toml" && result["configError"] == nil)
        #expect(result["freedesktop"] == "owns the name")
        var troubled = Self.healthy
        troubled.persistence = .degraded("disk full")
        troubled.configPath = nil
        troubled.configError = "c.toml:3:1: rule: bad\nmore"
        let bad = troubled.result(scheduler: [:])
        #expect(bad["persistence"] == "degraded" && bad["persistenceReason"] == "disk full")
        #expect(bad["config"] == .null && bad["configError"] == "c.toml:3:1: rule: bad\nmore")
    }

    @Test func theLineSaysWhatIsWrongFirstLineOnly() {
        #expect(Self.healthy.line(shown: 1, queued: 2, subscribers: 3, pauseLevel: nil) == "1 shown, 2 queued, 3 subscribers; owns the name")
        var troubled = Self.healthy
        troubled.persistence = .degraded("disk full")
        troubled.configError = "c.toml:3:1: rule: bad\nmore"
        troubled.board = [:]
        #expect(
            troubled.line(shown: 0, queued: 0, subscribers: 0, pauseLevel: 50)
                == "0 shown, 0 queued, 0 subscribers, paused at 50; persistence degraded: disk full; CONFIG REFUSED, defaults or the last good file in force: c.toml:3:1: rule: bad"
        )
    }
}
