import CommandLineSupport
import ToastKit
import ToastOverlay

#if canImport(Glibc)
import Glibc
#endif

// toast-overlay [--scene SCENE]: draws toastd's toasts on screen (Wayland
// layer-shell). Exits 1 when the compositor goes away, for systemd to restart it.
var scene = "default"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--scene", let value = arguments.popFirst() { scene = value } else {
        printError("usage: toast-overlay [--scene SCENE]")
        exit(2)
    }
}
let overlay = Overlay(socketPath: ToastConnection.path(explicit: nil), scene: scene)
do {
    try overlay.run { printError("toast-overlay: \($0)") }
} catch {
    printError("toast-overlay: \(error)")
    exit(1)
}
