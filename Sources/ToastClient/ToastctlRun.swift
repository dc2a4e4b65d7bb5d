import ArgumentParser
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    /// After SwiftToasts' task modifier: a progress HUD while a command
    /// runs, replaced in place by its result.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run a command under a progress HUD, then show how it went.",
            discussion: """
                Shows an indefinite, non-dismissible progress HUD naming the command while it runs, then \
                replaces it in place with a success or failure toast carrying the exit status and elapsed \
                time. The command keeps stdin, stdout and stderr; toastctl exits with its status.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "The HUD's alignment.") var alignment = "center"
        @Option(help: "The scene.") var scene: String?
        @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.") var command: [String]

        func validate() throws {
            if command.isEmpty { throw ValidationError("give the command after --, e.g. toastctl run -- make") }
        }

        func run() throws {
            let label = Terminal.sanitize(command.joined(separator: " "))
            let reuseID = "run-\(getpid())"
            var hud: [String: JSONValue] = [
                "message": .string(label), "title": "Running", "icon": "⏳", "alignment": .string(alignment),
                "reuseId": .string(reuseID), "progress": "indeterminate", "dismissible": false, "role": "info",
            ]
            if let scene { hud["scene"] = .string(scene) }
            // The HUD is a courtesy: if toastd is down, the command still runs.
            let connection = try? ToastConnection(path: client.socketPath)
            if let connection { _ = try? connection.request(["op": "add", "toast": .object(hud)], timeout: 2_000) }

            let started = monotonicMilliseconds()
            let status = try Self.spawnAndWait(command)
            let seconds = Double(monotonicMilliseconds() - started) / 1000
            let elapsed = seconds < 10 ? String(Int(seconds * 10)) .inserting(".", fromEnd: 1) + " s" : "\(Int(seconds)) s"

            // The result replaces the HUD in place: an update, not a second
            // add, which would count as a repeat (×2). Should the HUD be gone
            // (a forced clear, a restarted toastd), the result is added anew.
            var patch: [String: JSONValue] = ["progress": "none", "dismissible": true]
            if status == 0 {
                patch["role"] = "success"
                patch["title"] = "Done"
                patch["icon"] = "✓"
                patch["message"] = .string("\(label) (\(elapsed))")
            } else {
                patch["role"] = "failure"
                patch["title"] = "Failed"
                patch["icon"] = "✗"
                patch["message"] = .string("\(label) exited with status \(status) (\(elapsed))")
                patch["duration"] = "longer"
            }
            if let connection {
                var update: [String: JSONValue] = ["op": "update", "reuseId": .string(reuseID), "toast": .object(patch)]
                if let scene { update["scene"] = .string(scene) }
                let reply = try? connection.request(.object(update), timeout: 2_000)
                if reply?["ok"] != .bool(true) {
                    let result = hud.merging(patch) { _, new in new }
                    _ = try? connection.request(["op": "add", "toast": .object(result)], timeout: 2_000)
                }
            }
            throw ExitCode(status)
        }

        /// Runs the command with this process's stdio and returns its exit
        /// status (128 + N when killed by signal N, 127 when not found).
        static func spawnAndWait(_ command: [String]) throws -> Int32 {
            var pid: pid_t = 0
            let arguments = command.map { strdup($0) } + [nil]
            defer { arguments.forEach { free($0) } }
            let spawned = posix_spawnp(&pid, command[0], nil, nil, arguments, environ)
            guard spawned == 0 else {
                printError("toastctl: cannot run \(command[0]): \(String(cString: strerror(spawned)))")
                return 127
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7F
            return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        }
    }
}

extension String {
    fileprivate func inserting(_ separator: Character, fromEnd offset: Int) -> String {
        var text = self
        while text.count <= offset { text = "0" + text }
        text.insert(separator, at: text.index(text.endIndex, offsetBy: -offset))
        return text
    }
}
