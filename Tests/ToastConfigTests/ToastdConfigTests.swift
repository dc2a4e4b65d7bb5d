// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastConfig
import ToastCore

@Suite("The configuration file")
struct ToastdConfigTests {
    static let example = """
        # The README's example.
        modes = ["presentation"]

        [max_visible]
        top = 4
        bottom = 2

        [limits]
        max_toasts = 5000
        history_size = 300

        [pause]
        default_level = 40
        inhibit_level = 70

        [exec]
        timeout = 2.5
        max_running = 3

        [roles.failure]
        duration = "indefinite"
        alignment = "bottom"
        level = 90

        [roles."success"]
        dismissible = false

        [[rule]]
        match = { source = "ci*", role = "info" }
        set = { role = "failure", duration = "indefinite" }

        [[rule]]
        match = { app = "chatty-app" }
        drop = true

        [[rule]]
        match = { role = "failure" }
        exec = ["paplay", "/usr/share/sounds/freedesktop/stereo/dialog-error.oga"]

        [[rule]]
        match = { mode = "presentation", title_regex = "^(Deploy|Release) " }
        set = { scene = "quiet", level = 100, icon = "rocket" }
        """

    @Test func theExampleReadsAsWritten() throws {
        let config = try ToastdConfig.parse(Self.example).get()
        #expect(config.maxVisible == [.top: 4, .bottom: 2])
        #expect(config.maxToasts == 5_000)
        #expect(config.historySize == 300)
        #expect(config.pauseLevels.defaultLevel == 40)
        #expect(config.pauseLevels.inhibitLevel == 70)
        #expect(config.pauseLevels.roles[.failure] == 90)
        #expect(config.execTimeout == .milliseconds(2_500))
        #expect(config.execMaxRunning == 3)
        #expect(config.modes == ["presentation"])
        #expect(config.rules.roles[.failure] == RoleDefaults(duration: .indefinite, alignment: .bottom))
        #expect(config.rules.roles[.success] == RoleDefaults(dismissible: false))
        let rules = config.rules.rules
        #expect(rules.count == 4)
        #expect(rules[0].set.role == .failure && rules[0].set.duration == .indefinite)
        #expect(rules[1].drop && rules[1].match.source.map { $0.matches("chatty-app") } == true)
        #expect(rules[2].exec == ["paplay", "/usr/share/sounds/freedesktop/stereo/dialog-error.oga"])
        #expect(rules[3].match.mode == "presentation")
        #expect(rules[3].match.title?.matches("Deploy v2 ") == true)
        #expect(rules[3].match.title?.matches("Redeploy v2 ") == false)
        #expect(rules[3].origin == "rule 4 (line 40)")
    }

    @Test func flagsWinOverTheFileAndTheFileOverTheDefaults() throws {
        let config = try ToastdConfig.parse(Self.example).get()
        let fromFile = config.scheduler(overriding: .init())
        #expect(fromFile.maxVisibleTop == 4 && fromFile.maxVisibleCenter == 1 && fromFile.maxVisibleBottom == 2)
        #expect(fromFile.maxToasts == 5_000 && fromFile.maxToastsPerSource == 10_000)
        #expect(fromFile.pauseLevels.defaultLevel == 40)
        let flagged = config.scheduler(overriding: .init(maxVisibleTop: 7, maxToasts: 9))
        #expect(flagged.maxVisibleTop == 7 && flagged.maxVisibleBottom == 2 && flagged.maxToasts == 9)
    }

    /// Every problem, each where it was written, in file order.
    @Test func everyProblemIsReportedWithItsLineAndColumn() {
        let text = """
            colour = "red"
            [max_visible]
            top = 0
            middle = 2

            [roles.failure]
            duration = "forever"
            level = 101

            [[rule]]
            match = { role = "infoo", "title_regex" = "(a)\\\\1" }
            set = { scene = "" }

            [[rule]]
            set = { role = "failure" }

            [[rule]]
            match = { mode = "unknown" }
            exec = []
            drop = "yes"
            """
        guard case .failure(let invalid) = ToastdConfig.parse(text, path: "c.toml") else {
            Issue.record("the file was accepted")
            return
        }
        let found = invalid.problems.map { "\($0.line):\($0.column) \($0.message.prefix { $0 != ":" })" }
        #expect(
            found == [
                "1:1 colour", "3:1 max_visible.top", "4:1 max_visible.middle", "7:1 roles.failure.duration",
                "8:1 roles.failure.level", "11:11 rule 1.match.role", "11:27 rule 1.match.title_regex",
                "12:9 rule 1.set.scene", "14:1 rule 2", "19:1 rule 3.exec", "20:1 rule 3.drop",
            ]
        )
        #expect(invalid.description.hasPrefix("c.toml:1:1: colour: unknown key"))
    }

    /// A scene or icon a rule sets gets the checks of an add's own: a bad
    /// one is the file's error at load, not an error on every matching add.
    @Test func aRuleSetsOnlyWhatAnAddCouldCarry() {
        let text = """
            [[rule]]
            match = {}
            set = { scene = "two words" }

            [[rule]]
            match = {}
            set = { icon = "   " }

            [[rule]]
            match = {}
            set = { scene = "ok.scene-1", icon = "rocket" }
            """
        guard case .failure(let invalid) = ToastdConfig.parse(text) else {
            Issue.record("the file was accepted")
            return
        }
        #expect(invalid.problems.map { "\($0.line):\($0.column)" } == ["3:9", "7:9"])
        #expect(invalid.problems[0].message.contains("may contain only ASCII letters, digits"))
        #expect(invalid.problems[1].message.contains("must not be empty or only whitespace"))
    }

    @Test func aRuleNamingAnUndeclaredModeIsRefusedOnlyWhenModesAreDeclared() {
        let rule = "[[rule]]\nmatch = { mode = \"focus\" }\ndrop = true\n"
        #expect((try? ToastdConfig.parse(rule).get()) != nil)
        guard case .failure(let invalid) = ToastdConfig.parse("modes = [\"work\"]\n" + rule) else {
            Issue.record("an undeclared mode was accepted")
            return
        }
        #expect(invalid.problems.map(\.line) == [3])
        #expect(invalid.problems[0].message.contains("unknown mode 'focus'"))
    }

    @Test func aSyntaxErrorHasTOMLsPosition() {
        guard case .failure(let invalid) = ToastdConfig.parse("a = 1\n[[rule]\n", path: "c.toml") else {
            Issue.record("the file was accepted")
            return
        }
        #expect(invalid.problems.count == 1)
        #expect(invalid.problems[0].line == 2)
    }

    @Test func anEmptyFileIsTheDefaults() throws {
        let config = try ToastdConfig.parse("").get()
        #expect(config.rules.isEmpty)
        #expect(config.scheduler(overriding: .init()) == SchedulerConfiguration())
    }

    @Test func defaultPathFollowsXDG() {
        #expect(ToastdConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/toastd/config.toml")
        #expect(ToastdConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/toastd/config.toml")
        #expect(ToastdConfig.defaultPath(environment: [:]) == nil)
    }

    @Test func aMissingFileIsAProblemOfItsOwn() {
        guard case .failure(let invalid) = ToastdConfig.load(path: "/nonexistent/toastd/config.toml") else {
            Issue.record("a missing file loaded")
            return
        }
        #expect(invalid.problems.first?.message.contains("cannot read") == true)
    }

    /// A file larger than a configuration can be is refused unread; one at
    /// the limit is read (and judged on what it says).
    @Test func aFileOverTheLimitIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "toastd-config-\(UUID().uuidString.prefix(8)).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let comment = Array("# padding\n".utf8)
        var bytes = Array(repeating: comment, count: ToastdConfig.maxFileBytes / comment.count).flatMap { $0 }
        bytes += Array(repeating: UInt8(ascii: "#"), count: ToastdConfig.maxFileBytes - bytes.count)
        try Data(bytes).write(to: URL(filePath: path))
        guard case .success = ToastdConfig.load(path: path) else {
            Issue.record("a file of comments at the limit was refused")
            return
        }
        try Data(bytes + [UInt8(ascii: "\n")]).write(to: URL(filePath: path))
        guard case .failure(let invalid) = ToastdConfig.load(path: path) else {
            Issue.record("a file over the limit loaded")
            return
        }
        #expect(invalid.problems.first?.message.contains("over \(ToastdConfig.maxFileBytes) bytes") == true)
    }
}

/// The README's example configuration is a valid file: the documentation
/// cannot drift from what toastd accepts.
@Suite("The README's configuration")
struct ReadmeConfigTests {
    @Test func theExampleInTheREADMEIsAccepted() throws {
        let readme = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "```toml\n"), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) else {
            Issue.record("README.md has no ```toml block")
            return
        }
        let config = try ToastdConfig.parse(String(text[start.upperBound..<end.lowerBound]), path: "README.md").get()
        #expect(config.rules.rules.count >= 5)
        #expect(config.rules.rules.contains { $0.drop })
        #expect(config.rules.rules.contains { $0.exec != nil })
        #expect(config.rules.rules.contains { $0.match.mode != nil })
    }
}

/// Rules match freedesktop's hints as mako and dunst criteria do (issue #40).
@Suite("Rules on a notification's hints")
struct HintRuleTests {
    static let rules = """
        [[rule]]
        match = { category = "email.*" }
        set = { scene = "mail" }

        [[rule]]
        match = { desktop_entry = "org.gnome.Evolution" }
        set = { icon = "📧" }

        [[rule]]
        match = { urgency = "critical" }
        set = { level = 90 }

        [[rule]]
        match = { icon = "audio-volume-*" }
        set = { alignment = "center" }

        [[rule]]
        match = { actionable = true }
        set = { dismissible = false }
        """

    func applied(_ change: (inout Toast) -> Void) throws -> Toast {
        let config = try ToastdConfig.parse(Self.rules).get()
        var toast = Toast(message: "m")
        change(&toast)
        _ = config.rules.apply(to: &toast, modes: [])
        return toast
    }

    @Test("each hint is matched by its own rule, and only its own")
    func eachHint() throws {
        #expect(try applied { $0.category = "email.arrived" }.scene == "mail")
        #expect(try applied { $0.category = "im.received" }.scene == Toast.defaultScene)
        #expect(try applied { $0.desktopEntry = "org.gnome.Evolution" }.icon == "📧")
        #expect(try applied { $0.urgency = .critical }.level == 90)
        #expect(try applied { $0.urgency = .normal }.level == nil)
        #expect(try applied { $0.icon = "audio-volume-high" }.alignment == .center)
        #expect(try applied { $0.actions = [ToastAction(id: "a", label: "A")] }.dismissible == false)
        let plain = try applied { _ in }
        #expect(plain.scene == Toast.defaultScene && plain.icon == nil && plain.level == nil && plain.alignment == .top && plain.dismissible)
    }

    @Test("a bad value for a hint's key is an error with its place")
    func badValues() {
        guard case .failure(let invalid) = ToastdConfig.parse("[[rule]]\nmatch = { urgency = \"urgent\" }\ndrop = true\n") else {
            Issue.record("an unknown urgency was taken")
            return
        }
        #expect(invalid.description.contains("urgency"))
        #expect(invalid.description.contains(":2:"), "line 2")
    }
}
