// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PropertyBased
import Testing

@testable import ToastdCommand

/// `ToastdArguments(quick:)` may decline any command line, but a command
/// line it accepts must mean exactly what it means to ArgumentParser.
@Suite("toastd's quick reader")
struct QuickStartTests {
    /// What ArgumentParser makes of a command line (after `preprocess`, as
    /// `Toastd.main` gives it): nil for an error, help or version.
    static func viaArgumentParser(_ words: [String]) -> ToastdArguments? {
        (try? Toastd.parse(preprocess(words)))?.arguments
    }

    /// The lines toastd is started with: the systemd units', the
    /// benchmarks' and the tests'. Declining one of these would quietly
    /// give the start-up time back.
    @Test(arguments: [
        [],
        ["--freedesktop"],
        ["--freedesktop=replace"],
        ["--socket", "/run/user/1000/toastd.sock", "--state-dir", "/tmp/state"],
        ["--socket=/tmp/s", "--ephemeral", "--max-connections", "1024", "--subscriber-lag-timeout", "2"],
        ["--socket", "/tmp/s", "--state-dir", "/tmp/d", "--config", "/tmp/c.toml", "--freedesktop", "--log-level", "debug"],
        ["--max-visible-top", "2", "--max-visible-center=1", "--max-visible-bottom", "5", "--max-toasts", "900"],
        ["--max-toasts-per-source", "9", "--history-size", "0", "--resume-events", "64", "--max-line-bytes", "4096"],
        ["--subscriber-buffer-bytes", "65536", "--deny-root", "--log-target", "stderr"],
    ])
    func readsCommonLinesLikeArgumentParser(words: [String]) throws {
        let quick = try #require(ToastdArguments(quick: words))
        #expect(quick == Self.viaArgumentParser(words))
    }

    /// Each of these is ArgumentParser's to answer: help, a usage error, or
    /// a form this reader does not know.
    @Test(arguments: [
        ["--help"], ["-h"], ["--version"], ["--check-config"], ["--check-config", "/tmp/c.toml"],
        ["serve"], ["--socket"], ["--socket", "-x"], ["--socket="], ["--socket", "a", "--socket", "b"],
        ["--freedesktop", "replace"], ["--freedesktop=maybe"], ["--ephemeral=yes"], ["--ephemeral", "--state-dir", "/tmp/d"],
        ["--max-toasts", "many"], ["--max-toasts", "0"], ["--max-toasts", "-1"], ["--history-size", "2.5"],
        ["--subscriber-lag-timeout", "0"], ["--log-target", "syslog"], ["--bogus"], ["--"], ["--=x"],
    ])
    func declinesTheRest(words: [String]) {
        #expect(ToastdArguments(quick: words) == nil)
    }

    static let words = [
        "", "x", "-", "--", "-x", "=", "--=x", "--socket", "--socket=/tmp/s", "/tmp/s", "--state-dir", "--state-dir=",
        "--config", "--ephemeral", "--ephemeral=1", "--deny-root", "--freedesktop", "--freedesktop=own",
        "--freedesktop=replace", "replace", "own", "--max-toasts", "--max-toasts=0", "100", "0", "-1", "2.5", "1e3",
        "--history-size", "--max-visible-top", "--subscriber-lag-timeout", "--subscriber-lag-timeout=0.5", "nan",
        "--log-level", "debug", "--log-target", "journal", "--log-target=auto", "--max-line-bytes", "--help",
        "--version", "--check-config", "--resume-events=64", "--max-connections",
    ]

    /// Random command lines from a vocabulary of flags, values and
    /// mistakes: whenever the quick reader accepts one, ArgumentParser reads
    /// the same arguments from it.
    @Test func agreesWithArgumentParserOnRandomLines() async {
        let lines = Gen.int(in: 0..<Self.words.count).array(of: 0...6)
        await propertyCheck(count: 4000, input: lines) { picks in
            let words = picks.map { Self.words[$0] }
            if let quick = ToastdArguments(quick: words) {
                #expect(quick == Self.viaArgumentParser(words), "\(words)")
            }
        }
    }
}
