// SPDX-License-Identifier: Apache-2.0
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
        abstract: "Draw toastd's toasts on screen: Wayland (layer-shell: sway, Hyprland, river, KDE) or X11.",
        discussion: """
            The scene's stacks as toastd shows them: the top stack from the top edge, the HUD in the \
            middle, the bottom stack from the bottom edge, newest nearest the middle. A card has its \
            role's colour and glyph (or the toast's emoji, icon name, image file or image data), the \
            title, the message (its markup drawn when the toast came with freedesktop body markup; \
            plain text is never read as markup), ×N, a progress bar or spinner, the countdown, action \
            buttons and a close button. A click on a button invokes its action, on the close button \
            dismisses, on the body invokes the toast's `default` action or else dismisses; a toast that \
            cannot be dismissed says so on its card. It decides nothing itself (no queue, no expiry).

            Style: the [overlay] table of the configuration file (font, title_font, width, \
            corner_radius, padding, gap, margin, position, opacity, transition, transition_ms, output, \
            icon_theme, and [overlay.colors] per role and text), read again whenever the file changes; \
            a file with a mistake keeps the style in use and logs why. `toastd --check-config` checks it.

            Wayland: layer-shell surfaces on the overlay layer, no keyboard focus, clicks outside the \
            cards pass through, drawn at the output's scale, on the focused output or the one named by \
            `output`. X11: override-redirect notification windows shaped to their cards.

            Exit status: 0 never (it runs until stopped); 1 the display went away or cannot be opened \
            (systemd restarts it); 2 usage error. toastd restarting is resumed, not an exit.
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
