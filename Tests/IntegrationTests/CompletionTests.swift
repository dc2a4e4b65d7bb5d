// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// toastctl's generated completion scripts, loaded into the real shells.
@Suite("toastctl shell completions")
struct CompletionTests {
    /// Asks bash's completion function for the candidates after `words`.
    func bashCandidates(_ words: [String], socket: String? = nil) throws -> [String] {
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let line = words.joined(separator: " ")
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source <('\(toastctl)' --generate-completion-script bash)
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _toastctl toastctl '\(words.last!)' '\(words.dropLast().last!)'
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        // The script runs `toastctl` itself for what the daemon knows (modes, named rules): from PATH, as a shell would.
        var environment = ["PATH": DaemonFixture.binaryDirectory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        if let socket { environment["TOASTD_SOCKET"] = socket }
        let outcome = try DaemonFixture.run("/bin/bash", ["-c", script], environment: environment)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesSubcommandsOptionsAndValues() throws {
        #expect(try bashCandidates(["toastctl", "ad"]) == ["add"])
        #expect(try bashCandidates(["toastctl", "add", "--reu"]) == ["--reuse-id"])
        #expect(Set(try bashCandidates(["toastctl", "add", "x", "--role", ""])) == ["plain", "info", "success", "warning", "failure"])
        #expect(try bashCandidates(["toastctl", "add", "x", "--alignment", "ce"]) == ["center"])
        #expect(Set(try bashCandidates(["toastctl", "mode", ""])).isSuperset(of: ["set", "add", "remove", "toggle"]))
    }

    /// `toastctl mode add <TAB>` asks the running toastd for the declared modes; `rule <TAB>` for the named rules.
    @Test func modesAndRulesCompleteFromTheRunningDaemon() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/toastd-complete-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            modes = ["presentation", "focus"]
            [[rule]]
            name = "quiet-chat"
            match = { source = "chat*" }
            drop = true
            """.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        let daemon = try DaemonFixture(arguments: ["--config", directory + "/config.toml"])
        #expect(Set(try bashCandidates(["toastctl", "mode", "add", ""], socket: daemon.socket)) == ["presentation", "focus"])
        #expect(try bashCandidates(["toastctl", "rule", "qu"], socket: daemon.socket) == ["quiet-chat"])
    }

    @Test(arguments: ["zsh", "fish"])
    func zshAndFishScriptsNameEverySubcommand(shell: String) throws {
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        let outcome = try DaemonFixture.run(toastctl, ["--generate-completion-script", shell])
        #expect(outcome.status == 0)
        for command in ["add", "update", "remove", "dismiss", "invoke", "clear", "list", "pause", "resume", "status", "watch", "raw", "run"] {
            #expect(outcome.stdout.contains(command), "\(shell) script lacks \(command)")
        }
    }
}
