// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing
import ToastCore

@Suite("Rules, role defaults and pause levels")
struct ToastRulesTests {
    static func rule(_ build: (inout ToastRule) -> Void) -> ToastRule {
        var rule = ToastRule()
        build(&rule)
        return rule
    }

    @Test func everyMatchingRuleAppliesInOrderAndALaterSetWins() {
        let rules = ToastRules(rules: [
            Self.rule { $0.match.source = .glob("ci*"); $0.set.role = .failure; $0.set.icon = "first" },
            Self.rule { $0.match.role = .failure; $0.set.icon = "second"; $0.exec = ["paplay", "x"] },
            Self.rule { $0.match.source = .glob("other"); $0.set.icon = "never" },
            Self.rule { $0.match.message = .glob("*deploy*"); $0.exec = ["notify"] },
        ])
        var toast = Toast(message: "deploy done", role: .info, source: "ci-runner[42]")
        let outcome = rules.apply(to: &toast, modes: [])
        // The second rule sees the role the first one set.
        #expect(toast.role == .failure)
        #expect(toast.icon == "second")
        #expect(outcome.matched == [0, 1, 3])
        #expect(outcome.exec == [["paplay", "x"], ["notify"]])
        #expect(!outcome.drop)
    }

    /// `matched` lists every matching rule in order, past the 64 kept as
    /// bits as well.
    @Test func matchedListsEveryMatchingRuleInOrder() {
        let matching: Set = [0, 3, 63, 64, 70, 99]
        let rules = ToastRules(
            rules: (0..<100).map { index in
                Self.rule { $0.match.message = .glob(matching.contains(index) ? "m*" : "x*") }
            }
        )
        var toast = Toast(message: "m")
        #expect(rules.apply(to: &toast, modes: []).matched == matching.sorted())
    }

    /// `apply` walks a compiled copy of `rules`: a rule appended, replaced
    /// or removed after the rules were made (as the config reader appends
    /// them) takes effect at once.
    @Test func rulesChangedAfterInitApply() {
        var rules = ToastRules()
        rules.rules.append(Self.rule { $0.match.role = .info; $0.set.icon = "appended" })
        var toast = Toast(message: "m", role: .info)
        #expect(rules.apply(to: &toast, modes: []).matched == [0])
        #expect(toast.icon == "appended")

        rules.rules[0].set.icon = "replaced"
        rules.rules.append(Self.rule { $0.match.message = .glob("m"); $0.drop = true })
        var again = Toast(message: "m", role: .info)
        let outcome = rules.apply(to: &again, modes: [])
        #expect(again.icon == "replaced")
        #expect(outcome.matched == [0, 1] && outcome.drop)

        rules.rules.removeAll()
        var last = Toast(message: "m", role: .info)
        #expect(rules.apply(to: &last, modes: []).matched.isEmpty)
        #expect(last.icon == nil)
    }

    @Test func roleDefaultsFillOnlyWhatNeitherTheSenderNorARuleSaid() {
        let rules = ToastRules(
            roles: [.failure: RoleDefaults(duration: .indefinite, alignment: .bottom, dismissible: false)],
            rules: [Self.rule { $0.match.source = .glob("ci"); $0.set.role = .failure; $0.set.alignment = .center }]
        )
        var defaulted = Toast(message: "a", role: .failure)
        _ = rules.apply(to: &defaulted, unset: .all, modes: [])
        #expect(defaulted.duration == .indefinite && defaulted.alignment == .bottom && !defaulted.dismissible)

        var explicit = Toast(message: "b", role: .failure, duration: .short, alignment: .top)
        _ = rules.apply(to: &explicit, unset: [.dismissible], modes: [])
        #expect(explicit.duration == .short && explicit.alignment == .top && !explicit.dismissible)

        // A rule made it a failure: the failure defaults apply, except what the rule set.
        var ruled = Toast(message: "c", role: .info, source: "ci")
        _ = rules.apply(to: &ruled, unset: .all, modes: [])
        #expect(ruled.role == .failure && ruled.alignment == .center && ruled.duration == .indefinite)
    }

    /// Each role gets its own defaults and no other's, however the roles
    /// are set: at init, or changed afterwards (as a reload's config does).
    @Test func eachRoleGetsItsOwnDefaults() {
        let durations = Dictionary(uniqueKeysWithValues: ToastRole.allCases.enumerated().map { ($1, ToastDuration.seconds(Double($0 + 1))) })
        var rules = ToastRules(roles: durations.mapValues { RoleDefaults(duration: $0) })
        for role in ToastRole.allCases {
            var toast = Toast(message: "m", role: role)
            _ = rules.apply(to: &toast, unset: .all, modes: [])
            #expect(toast.duration == durations[role], "\(role)")
        }
        rules.roles = [.warning: RoleDefaults(alignment: .bottom)]
        for role in ToastRole.allCases {
            var toast = Toast(message: "m", role: role)
            _ = rules.apply(to: &toast, unset: .all, modes: [])
            #expect(toast.duration == nil && toast.alignment == (role == .warning ? .bottom : .top), "\(role)")
        }
    }

    @Test func matchKeysAllMustMatch() {
        var match = ToastRule.Match()
        match.source = .glob("ci*")
        match.role = .info
        match.scene = "work"
        match.alignment = .top
        match.mode = "focus"
        match.title = .glob("")
        let toast = Toast(message: "m", role: .info, scene: "work", source: "ci")
        #expect(match.matches(toast, modes: ["focus", "other"]))
        #expect(!match.matches(toast, modes: []))
        var other = toast
        other.scene = "home"
        #expect(!match.matches(other, modes: ["focus"]))
        var titled = toast
        titled.title = "T"
        #expect(!match.matches(titled, modes: ["focus"]), "a missing title matches as the empty string")
        #expect(ToastRule.Match().matches(toast, modes: []), "an empty match matches everything")
    }

    /// Rules apply on the add path of the service: a drop ends the toast at
    /// once (kept in history); a command runs when its toast is presented.
    @Test func dropAndExecThroughTheService() throws {
        var service = ToastService(configuration: SchedulerConfiguration(maxVisible: 1))
        _ = service.reconfigure(
            SchedulerConfiguration(maxVisible: 1),
            rules: ToastRules(rules: [
                Self.rule { $0.match.source = .glob("chatty*"); $0.drop = true },
                Self.rule { $0.match.role = .failure; $0.exec = ["sound"] },
            ]),
            now: 0
        )
        let dropped = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"x"}}"#.utf8), defaultSource: "chatty[1]", now: 0)
        #expect(dropped.reply?["result"]?["dropped"] == true)
        _ = service.publish(dropped.effects)
        #expect(service.scheduler.count == 0)
        #expect(service.history.find(ToastHistory.Query()).first?.reason == "dropped")

        let first = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"a","duration":1}}"#.utf8), defaultSource: "s", now: 0)
        _ = service.publish(first.effects)
        let waiting = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"b","role":"failure"}}"#.utf8), defaultSource: "s", now: 0)
        _ = service.publish(waiting.effects)
        #expect(service.takeRuns().isEmpty, "the failure waits: its command has not run")
        _ = service.publish(service.advance(to: 1_000))
        let runs = service.takeRuns()
        #expect(runs.map(\.argv) == [["sound"]])
        #expect(runs.first?.record.state == .shown)
        // Added again while shown: it is not presented again, but its command runs.
        let again = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"b","role":"failure"}}"#.utf8), defaultSource: "s", now: 1_000)
        _ = service.publish(again.effects)
        #expect(service.takeRuns().map(\.argv) == [["sound"]])
    }

    @Test func aToastThatEndsBeforeItsPresentationRunsNothing() {
        var service = ToastService(configuration: SchedulerConfiguration(maxVisible: 1))
        _ = service.reconfigure(
            SchedulerConfiguration(maxVisible: 1), rules: ToastRules(rules: [Self.rule { $0.match.role = .failure; $0.exec = ["sound"] }]),
            now: 0
        )
        for line in [#"{"op":"add","toast":{"message":"a","duration":1}}"#, #"{"op":"add","toast":{"message":"b","role":"failure"}}"#, #"{"op":"remove","id":2}"#] {
            _ = service.publish(service.respond(toLine: Array(line.utf8), defaultSource: "s", now: 0).effects)
        }
        _ = service.publish(service.advance(to: 2_000))
        #expect(service.takeRuns().isEmpty)
    }

    /// While paused, toasts at or above the level are shown in arrival
    /// order; the ones held back keep their places and show, in order, once
    /// the level falls below them.
    @Test func pauseLevelsHoldBelowAndLetThroughAtOrAbove() {
        var scheduler = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 5))
        _ = scheduler.handle(.pause(level: 60), now: 0)
        for (message, level) in [("low", 10), ("mid", 60), ("none", nil), ("high", 90)] as [(String, Int?)] {
            var toast = Toast(message: message, duration: .indefinite)
            toast.level = level
            _ = scheduler.handle(.add(toast), now: 0)
        }
        func shown() -> [String] { scheduler.snapshot().toasts.filter { $0.state == .shown }.map(\.toast.message) }
        #expect(shown() == ["mid", "high"])
        let lowered = scheduler.handle(.pause(level: 5), now: 1).events.map(\.name)
        #expect(lowered == ["paused", "presented"])
        #expect(shown() == ["mid", "high", "low"])
        _ = scheduler.handle(.inhibit(level: 50), now: 2)
        #expect(scheduler.pauseLevel == 50)
        let resumed = scheduler.handle(.resume, now: 3)
        #expect(scheduler.pauseLevel == 50, "the inhibitor still holds")
        #expect(resumed.events.isEmpty, "the level held did not change")
        let released = scheduler.handle(.inhibit(level: 0), now: 4)
        #expect(released.events.map(\.name) == ["resumed", "presented"])
        #expect(shown() == ["mid", "high", "low", "none"])
    }

    /// Applying rules never changes a toast they do not match.
    @Test func rulesThatDoNotMatchLeaveTheToastAlone() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...10_000)) { seed in
            let roles = ToastRole.allCases
            var toast = Toast(message: "m\(seed)", role: roles[seed % roles.count], source: "s\(seed % 7)")
            let before = toast
            let rules = ToastRules(rules: [
                Self.rule { $0.match.source = .glob("never*"); $0.set.role = .failure; $0.drop = true },
                Self.rule { $0.match.mode = "absent"; $0.set.icon = "x" },
            ])
            let outcome = rules.apply(to: &toast, unset: .all, modes: ["present"])
            #expect(toast == before)
            #expect(outcome == ToastRules.Outcome())
        }
    }
}
