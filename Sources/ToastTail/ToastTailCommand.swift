// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastKit
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// `toast-tail`: watch a scene's live stack.
public struct ToastTailCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "toast-tail",
        abstract: "Draw the live toast stack of a scene in the terminal.",
        discussion: """
            Keys: Up/Down or j/k select a toast, d dismisses it, 1-9 invoke its buttons, Enter its default action (the body's click), c clears the \
            scene, p pauses or resumes (do not disturb), q quits. When stdout is not a terminal, or \
            with --lines, it prints one line per event instead; --json prints the raw event stream. \
            If toastd goes away it reconnects, and resynchronizes from a fresh snapshot.
            """,
        version: ProtocolInfo.toolVersion
    )

    public enum ColorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
        case auto, always, never
    }

    @Option(help: "The toastd socket (default: $TOASTD_SOCKET, else $XDG_RUNTIME_DIR/toastd.sock, else /tmp/toastd-$UID/toastd.sock).")
    var socket: String?
    @Option(help: "The scene to show.") var scene = "default"
    @Option(help: "Only these roles (repeatable).", completion: .list(ToastRole.allCases.map(\.rawValue)))
    var role: [String] = []
    @Flag(help: "One readable line per event, even on a terminal.") var lines = false
    @Flag(help: "The raw event stream: one JSON object per line.") var json = false
    @Flag(help: "Print the current stack and exit.") var once = false
    @Option(help: "Colour: auto (a terminal, and NO_COLOR unset), always or never.") var color: ColorChoice = .auto

    public init() {}

    public func validate() throws {
        for name in role where ToastRole(rawValue: name) == nil {
            throw ValidationError("unknown role '\(name)': expected one of \(ToastRole.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if [lines, json, once].filter({ $0 }).count > 1 {
            throw ValidationError("--lines, --json and --once exclude each other.")
        }
    }

    public func run() throws {
        let path = ToastConnection.path(explicit: socket)
        let useColor = Self.useColor(color, isTerminal: TerminalSession.isTerminal(STDOUT_FILENO), environment: ProcessInfoEnvironment.current)
        if once {
            do {
                try TailStream.once(
                    socketPath: path, scene: scene, roles: role,
                    columns: TerminalSession.size()?.columns ?? 80, color: useColor
                )
            } catch {
                printError("toast-tail: \(error)")
                throw ExitCode(3)
            }
            return
        }
        if json || lines || !TerminalSession.isTerminal(STDOUT_FILENO) {
            SignalPipe.unblock([SIGINT, SIGTERM, SIGHUP, SIGPIPE])
            TailStream.follow(socketPath: path, filter: EventFilter(scene: scene, roleNames: role), json: json)
            return
        }
        let app = TailApp(configuration: .init(socketPath: path, scene: scene, roles: role, color: useColor))
        app.run()
        if let fatal = app.fatal {
            printError("toast-tail: \(fatal)")
            throw ExitCode(3)
        }
    }

    /// `--color=auto` colours a terminal unless NO_COLOR is set to anything non-empty (no-color.org).
    public static func useColor(_ choice: ColorChoice, isTerminal: Bool, environment: [String: String]) -> Bool {
        switch choice {
        case .always: true
        case .never: false
        case .auto: isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
        }
    }
}
