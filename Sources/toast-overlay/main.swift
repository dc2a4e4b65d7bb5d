import ArgumentParser
import CommandLineSupport
import ToastKit
import ToastOverlay
import ToastConfig
import ToastProtocol

extension Overlay.Backend: ExpressibleByArgument {}

/// toast-overlay: toastd's toasts drawn on screen.
struct ToastOverlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toast-overlay",
        abstract: "Draw toastd's toasts on screen (a Wayland compositor with layer-shell: sway, Hyprland, river, KDE).",
        discussion: """
            The scene's stacks as toastd shows them: the top stack from the top edge, the HUD in the \
            middle, the bottom stack from the bottom edge, each card in its role's colour. It decides \
            nothing itself (no queue, no expiry), resumes when toastd restarts, and exits with status 1 \
            when the compositor goes away, for systemd to restart it. Exit status: 2 usage error.
            """,
        version: ProtocolInfo.toolVersion
    )

    @Option(help: "The toastd socket (default: $TOASTD_SOCKET, else $XDG_RUNTIME_DIR/toastd.sock, else /tmp/toastd-$UID/toastd.sock).")
    var socket: String?
    @Option(help: "The scene to draw.") var scene = "default"
    @Option(help: "The display: auto (Wayland when WAYLAND_DISPLAY is set, else X11), wayland or x11.")
    var backend: Overlay.Backend = .auto
    @Option(help: "The configuration file whose [overlay] table styles the cards (default: $XDG_CONFIG_HOME/toastd/config.toml); read again when it changes.")
    var config: String?

    func run() throws {
        let environment = ProcessInfoEnvironment.current
        let overlay = Overlay(
            socketPath: ToastConnection.path(explicit: socket), scene: scene,
            configPath: config ?? ToastdConfig.defaultPath(environment: environment), backend: backend,
            environment: environment, log: { printError("toast-overlay: \($0)") }
        )
        do {
            try overlay.run()
        } catch {
            printError("toast-overlay: \(error)")
            throw ExitCode(1)
        }
    }
}

CommandLineTool.main(ToastOverlayCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
