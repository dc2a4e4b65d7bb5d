// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastKit
import ToastProtocol
import ToastNotify

#if canImport(Glibc)
import Glibc
#endif

/// toast-notify: toastd's toasts on the desktop's own notification server.
struct ToastNotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toast-notify",
        abstract: "Show toastd's toasts on the desktop's notification server (GNOME Shell, KDE, dunst, mako, swaync).",
        discussion: """
            A presented toast becomes a notification, an update replaces it in place, and its end closes \
            it. Invoking an action there invokes it in toastd; dismissing it there dismisses the toast. \
            toast-notify reconnects to toastd and to the bus, and refuses to run when the notification \
            server is toastd itself (toastd --freedesktop). Exit status: 0 on SIGINT or SIGTERM, 2 usage \
            error, 3 toastd or the bus refused.
            """,
        version: ProtocolInfo.toolVersion
    )

    @Option(help: "The toastd socket (default: $TOASTD_SOCKET, else $XDG_RUNTIME_DIR/toastd.sock, else /tmp/toastd-$UID/toastd.sock).")
    var socket: String?
    @Option(help: "Only this scene (default: every scene).") var scene: String?

    func run() throws {
        let path = ToastConnection.path(explicit: socket)
        var stop: [Int32] = [0, 0]
        pipe(&stop)
        StopSignals.install(writeEnd: stop[1])
        let mirror = NotifyMirror(configuration: .init(socketPath: path, scene: scene)) { printError("toast-notify: \($0)") }
        do {
            try mirror.run(until: stop[0])
        } catch {
            printError("toast-notify: \(error)")
            throw ExitCode(3)
        }
    }
}

/// SIGINT and SIGTERM write a byte to a pipe the loop polls.
enum StopSignals {
    nonisolated(unsafe) static var writeEnd: Int32 = -1

    static func install(writeEnd: Int32) {
        Self.writeEnd = writeEnd
        var none = sigset_t()
        sigemptyset(&none)
        sigaddset(&none, SIGINT)
        sigaddset(&none, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &none, nil)
        for signal in [SIGINT, SIGTERM] {
            Glibc.signal(signal) { _ in
                var byte: UInt8 = 1
                _ = write(StopSignals.writeEnd, &byte, 1)
            }
        }
    }
}

CommandLineTool.main(ToastNotifyCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
