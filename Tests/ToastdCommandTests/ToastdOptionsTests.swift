// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Testing
import ToastConfig
import ToastCore
import ToastDaemon

@testable import ToastdCommand

/// toastd's flags → `DaemonOptions`: the defaults are `DaemonOptions`', the
/// limits are `DaemonOptions.Limits`', and flags win over the file.
@Suite("toastd's options")
struct ToastdOptionsTests {
    static let environment = ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"]

    static func options(_ arguments: [String], file: String? = nil) throws -> DaemonOptions {
        let command = try Toastd.parse(arguments).arguments
        let outcome: ConfigurationSource.Outcome
        switch file.map({ ToastdConfig.parse($0) }) {
        case nil: outcome = .defaults
        case .success(let config)?: outcome = .loaded(config)
        case .failure(let invalid)?: outcome = .refused(invalid)
        }
        return command.options(environment: environment, uid: 1000, initialConfiguration: outcome)
    }

    @Test func noFlagsGiveTheDefaults() throws {
        let options = try Self.options([])
        let defaults = DaemonOptions.defaults
        #expect(options.socketPath == "/run/user/1000/toastd.sock")
        #expect(options.scheduler == SchedulerConfiguration())
        #expect(options.maxLineBytes == defaults.maxLineBytes && options.maxConnections == defaults.maxConnections)
        #expect(options.subscriberBufferBytes == defaults.subscriberBufferBytes)
        #expect(options.subscriberLagTimeout == defaults.subscriberLagTimeout)
        #expect(options.resumeEvents == defaults.resumeEvents && options.historySize == defaults.historySize)
        #expect(options.allowRoot)
        #expect(options.configuration?.path == "/home/u/.config/toastd/config.toml")
        #expect(options.configuration?.isExplicit == false)
        #expect(try Toastd.parse([]).arguments.stateDirectory(environment: Self.environment) == "/home/u/.local/state/toastd")
        #expect(try Toastd.parse(["--ephemeral"]).arguments.stateDirectory(environment: Self.environment) == nil)
    }

    @Test func flagsWinOverTheFileWhichWinsOverTheDefaults() throws {
        let file = """
            [limits]
            history_size = 5
            max_toasts = 900
            [max_visible]
            top = 2
            bottom = 6
            """
        let fromFile = try Self.options([], file: file)
        #expect(fromFile.historySize == 5)
        #expect(fromFile.scheduler.maxVisibleTop == 2 && fromFile.scheduler.maxVisibleBottom == 6)
        #expect(fromFile.scheduler.maxToasts == 900)
        #expect(fromFile.scheduler.maxVisibleCenter == SchedulerConfiguration().maxVisibleCenter)

        let flagged = try Self.options(["--history-size", "7", "--max-visible-top", "4", "--deny-root"], file: file)
        #expect(flagged.historySize == 7)
        #expect(flagged.scheduler.maxVisibleTop == 4 && flagged.scheduler.maxVisibleBottom == 6)
        #expect(!flagged.allowRoot)
    }

    @Test func aRefusedFileLeavesTheDefaultsAndTheFlags() throws {
        let options = try Self.options(["--max-visible-top", "5"], file: "[limits]\nhistory_size = -1\n")
        guard case .refused = options.initialConfiguration else {
            Issue.record("the file was not refused")
            return
        }
        #expect(options.historySize == DaemonOptions.defaults.historySize)
        #expect(options.scheduler == SchedulerConfiguration())  // ToastServer installs the defaults with the flags
    }

    @Test func secondsBecomeADuration() throws {
        #expect(try Self.options(["--subscriber-lag-timeout", "0.5"]).subscriberLagTimeout == .milliseconds(500))
        #expect(try Self.options(["--socket", "/tmp/x.sock"]).socketPath == "/tmp/x.sock")
    }

    /// Each limit's bounds are accepted and one step past them is a usage
    /// error naming the flag and the range: nothing is clamped.
    @Test(arguments: [
        ("--max-visible-top", DaemonOptions.Limits.maxVisible), ("--max-visible-center", DaemonOptions.Limits.maxVisible),
        ("--max-visible-bottom", DaemonOptions.Limits.maxVisible), ("--max-toasts", DaemonOptions.Limits.maxToasts),
        ("--max-toasts-per-source", DaemonOptions.Limits.maxToasts), ("--max-line-bytes", DaemonOptions.Limits.maxLineBytes),
        ("--max-connections", DaemonOptions.Limits.maxConnections),
        ("--subscriber-buffer-bytes", DaemonOptions.Limits.subscriberBufferBytes),
        ("--resume-events", DaemonOptions.Limits.resumeEvents), ("--history-size", DaemonOptions.Limits.historySize),
    ])
    func integerFlagsHoldToTheirLimits(flag: String, range: ClosedRange<Int>) throws {
        for inside in [range.lowerBound, range.upperBound] {
            #expect(throws: Never.self) { try Toastd.parse([flag, "\(inside)"]) }
        }
        for outside in [range.lowerBound - 1, range.upperBound + 1] {
            let message = Self.usageError(["\(flag)=\(outside)"])
            #expect(message?.contains(flag) == true, "\(message ?? "accepted")")
            #expect(message?.contains("from \(range.lowerBound) to \(range.upperBound)") == true, "\(message ?? "accepted")")
        }
    }

    @Test func theLagTimeoutHoldsToItsLimits() {
        let range = DaemonOptions.Limits.subscriberLagTimeoutSeconds
        #expect(Self.usageError(["--subscriber-lag-timeout", "\(range.lowerBound)"]) == nil)
        #expect(Self.usageError(["--subscriber-lag-timeout", "0"])?.contains("--subscriber-lag-timeout") == true)
        #expect(Self.usageError(["--subscriber-lag-timeout", "\(range.upperBound * 2)"]) != nil)
        #expect(Self.usageError(["--ephemeral", "--state-dir", "/tmp/s"])?.contains("exclude") == true)
    }

    /// The help quotes the defaults from their one home.
    @Test func theHelpQuotesTheDefaults() {
        let help = Toastd.helpMessage(columns: 400)
        let scheduler = SchedulerConfiguration()
        #expect(help.contains("Shown slots of each top stack (default \(scheduler.maxVisibleTop))"))
        #expect(help.contains("(default \(scheduler.maxToasts))"))
        #expect(help.contains("(default: \(DaemonOptions.defaults.maxConnections))"))
        #expect(help.contains("(default \(DaemonOptions.defaults.historySize))"))
    }

    static func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try Toastd.parse(arguments)
            return nil
        } catch {
            return Toastd.message(for: error)
        }
    }
}
