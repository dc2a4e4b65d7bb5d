import Foundation
import Testing

/// toastctl's generated completion scripts, loaded into the real shells.
@Suite("toastctl shell completions")
struct CompletionTests {
    /// Asks bash's completion function for the candidates after `words`.
    func bashCandidates(_ words: [String]) throws -> [String] {
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
        let outcome = try DaemonFixture.run("/bin/bash", ["-c", script])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesSubcommandsOptionsAndValues() throws {
        #expect(try bashCandidates(["toastctl", "ad"]) == ["add"])
        #expect(try bashCandidates(["toastctl", "add", "--reu"]) == ["--reuse-id"])
        #expect(Set(try bashCandidates(["toastctl", "add", "x", "--role", ""])) == ["plain", "info", "success", "warning", "failure"])
        #expect(try bashCandidates(["toastctl", "add", "x", "--alignment", "ce"]) == ["center"])
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
