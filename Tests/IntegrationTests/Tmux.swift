// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A private tmux server (its own socket, no config) holding real terminals
/// for end-to-end tests of toast-tail.
final class Tmux: @unchecked Sendable {
    static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    let name = "toastd-test-\(UUID().uuidString.prefix(8))"

    init(columns: Int, rows: Int, environment: [String: String]) throws {
        var arguments = ["new-session", "-d", "-s", "main", "-x", "\(columns)", "-y", "\(rows)"]
        for (key, value) in environment { arguments += ["-e", "\(key)=\(value)"] }
        arguments += ["/bin/bash --norc --noprofile"]
        try run(arguments)
        try run(["set-option", "-g", "remain-on-exit", "on"])
    }

    deinit { _ = try? run(["kill-server"]) }

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let outcome = try DaemonFixture.run("/usr/bin/tmux", ["-L", name, "-f", "/dev/null"] + arguments, environment: ["TERM": "xterm-256color"])
        guard outcome.status == 0 else { throw Failure(message: "tmux \(arguments.joined(separator: " ")): \(outcome.stderr)") }
        return outcome.stdout
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// A second pane below the first, running a shell.
    func split() throws { try run(["split-window", "-v", "-t", "main", "/bin/bash --norc --noprofile"]) }

    func type(_ pane: Int, _ text: String, enter: Bool = true) throws {
        try run(["send-keys", "-t", "main.\(pane)", "-l", text])
        if enter { try run(["send-keys", "-t", "main.\(pane)", "Enter"]) }
    }

    func keys(_ pane: Int, _ keys: String...) throws { try run(["send-keys", "-t", "main.\(pane)"] + keys) }

    func capture(_ pane: Int) throws -> String { try run(["capture-pane", "-p", "-t", "main.\(pane)"]) }

    func format(_ pane: Int, _ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "main.\(pane)", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the pane's screen satisfies `condition`; returns the last capture.
    @discardableResult
    func waitFor(_ pane: Int, timeout: Double = 10, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = try capture(pane)
        while !condition(screen) && Date() < deadline {
            usleep(50_000)
            screen = try capture(pane)
        }
        return screen
    }
}
