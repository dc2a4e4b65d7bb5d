import ArgumentParser
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// Do not disturb, modes, inhibitors and reload: toastctl's side of the
/// rules issue (PROTOCOL.md, sections 5.8 and 5.9).
extension Toastctl {
    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Do not disturb: hold back new toasts below a level until resume.",
            discussion: """
                Levels run from 1 to 100 (default: the configured one, 50). A toast whose level is at \
                least the pause level still shows: by default failures (level 80) do. --level 100 holds \
                everything but toasts a rule or their sender put at 100.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "Hold back toasts below this level (1-100).") var level: Int?
        @Flag(help: "Resume if paused, else pause.") var toggle = false

        func validate() throws {
            if let level, !(1...100).contains(level) { throw ValidationError("--level is 1 to 100") }
        }

        func run() throws {
            let request: Request = toggle ? .togglePause(level: level) : .command(.pause(level: level))
            let result = try client.perform(WireEncoder.request(request))
            client.output(result) { Self.describe(result) }
        }

        static func describe(_ result: JSONValue) -> String {
            let level = result["level"]?.intValue ?? 0
            return level > 0 ? "paused at level \(level)" : "resumed"
        }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Show what waited, in order.")
        @OptionGroup var client: ClientOptions
        func run() throws {
            let result = try client.perform(WireEncoder.request(.command(.resume)))
            client.output(result) { Pause.describe(result) }
        }
    }

    struct IsPaused: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "is-paused",
            abstract: "Exit 0 when do not disturb holds toasts back (a pause or an inhibitor), else 1.",
            discussion: "For scripts: `if toastctl is-paused; then ...`. Prints the level held unless --quiet."
        )
        @OptionGroup var client: ClientOptions
        @Flag(name: .shortAndLong, help: "Print nothing.") var quiet = false
        func run() throws {
            let status = try client.perform(WireEncoder.request(.status))
            let level = status["pauseLevel"]?.intValue ?? 0
            if !quiet { client.output(status) { level > 0 ? "paused at level \(level)" : "not paused" } }
            if level == 0 { throw ExitCode(1) }
        }
    }

    struct Mode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mode",
            abstract: "List the active modes, or change them (rules match modes).",
            discussion: """
                toastctl mode                   the active modes, one a line
                toastctl mode set A B           exactly these (none: `mode set`)
                toastctl mode add|remove|toggle NAME
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "set, add, remove or toggle; nothing lists.") var action: String?
        @Argument(help: "The mode names.") var names: [String] = []

        func validate() throws {
            switch action {
            case nil:
                if !names.isEmpty { throw ValidationError("give set, add, remove or toggle before the names") }
            case "set"?:
                break
            case "add"?, "remove"?, "toggle"?:
                if names.count != 1 { throw ValidationError("\(action!) takes one mode name") }
            case let other?:
                throw ValidationError("unknown mode action '\(other)'; expected set, add, remove or toggle")
            }
        }

        func run() throws {
            let change: Request.ModeChange =
                switch action {
                case "set"?: .set(names)
                case "add"?: .add(names[0])
                case "remove"?: .remove(names[0])
                case "toggle"?: .toggle(names[0])
                default: .list
                }
            let result = try client.perform(WireEncoder.request(.mode(change)))
            client.output(result) {
                guard case .array(let modes)? = result["modes"] else { return "" }
                return modes.compactMap { $0.stringValue.map(Terminal.sanitize) }.joined(separator: "\n")
            }
        }
    }

    struct Inhibit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inhibit",
            abstract: "Hold do not disturb while a command runs.",
            discussion: """
                toastctl inhibit -- CMD holds an inhibitor on its connection to toastd, runs CMD, and \
                exits with its status. The inhibitor ends when the connection closes, however toastctl \
                ends (even kill -9). Without a command it holds until interrupted.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "Why (shown in status).") var reason: String?
        @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.") var command: [String] = []

        func run() throws {
            let connection = try client.connect()
            let why = reason ?? (command.first.map { "toastctl inhibit \($0)" } ?? "toastctl inhibit")
            _ = try client.perform(WireEncoder.request(.inhibit(reason: why)), on: connection)
            guard !command.isEmpty else {
                // Until a signal ends this process; the kernel closes the connection.
                while true { pause() }
            }
            let status = try Run.spawnAndWait(command, forwardingSignals: true).status
            withExtendedLifetime(connection) {}
            throw ExitCode(status)
        }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract: "Make toastd read its configuration file again.",
            discussion: """
                Prints how many rules are in force. A refused file prints each problem with its line and \
                column and exits 1; toastd keeps the configuration it had.
                """
        )
        @OptionGroup var client: ClientOptions
        func run() throws {
            let result = try client.perform(WireEncoder.request(.reload))
            client.output(result) {
                let path = result["path"]?.stringValue ?? "no file (the defaults)"
                var text = "reloaded \(path): \(result["rules"]?.intValue ?? 0) rules"
                if case .array(let notes)? = result["notes"] {
                    text += notes.compactMap(\.stringValue).map { "\nnote: \($0)" }.joined()
                }
                return text
            }
        }
    }
}
