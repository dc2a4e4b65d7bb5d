// SPDX-License-Identifier: Apache-2.0
import Foundation
import SDBus
import ToastSystem

/// A headless sway (wlroots on pixman, no input devices) with a session bus
/// of its own, run as an unprivileged user: sway refuses root, and CI runs
/// as root. Every client of it (mako, toastd, toast-notify, toastctl) runs as
/// that user too, in a runtime directory it owns with mode 0700. As a user
/// that is not root, everything runs as that user. `.x11` runs Xvfb instead
/// of sway, for the overlay's X11 backend and for real clicks (xdotool).
final class HeadlessDesktop {
    enum Kind: String, CustomStringConvertible, CaseIterable, Sendable {
        case wayland, x11
        var description: String { rawValue }
    }

    let kind: Kind
    /// With `.x11`: the X display's number.
    private(set) var display = 0
    let uid: uid_t
    let gid: gid_t
    let runtime: String
    private(set) var busAddress = ""
    private var children: [pid_t] = []
    private(set) var server: pid_t = 0  // sway, or Xvfb

    static let available = ["/usr/bin/sway", "/usr/bin/setpriv", "/usr/bin/dbus-daemon"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && (getuid() != 0 || getpwuid(1000) != nil)
    static let x11Available = ["/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/bin/import", "/usr/bin/setpriv", "/usr/bin/dbus-daemon"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && (getuid() != 0 || getpwuid(1000) != nil)

    static func available(_ kind: Kind) -> Bool { kind == .wayland ? available : x11Available }

    init(_ kind: Kind = .wayland) throws {
        self.kind = kind
        if getuid() == 0 {
            uid = 1000
            gid = getpwuid(1000).map { $0.pointee.pw_gid } ?? 1000
        } else {
            (uid, gid) = (getuid(), getgid())
        }
        runtime = try TemporaryDirectory(prefix: "toastd-desktop").path
        chown(runtime, uid, gid)
        chmod(runtime, 0o700)
        // The user's session bus.
        let config = runtime + "/bus.conf"
        // The configuration of every private bus here: no service is activated
        // on it (`services` is never made).
        try PrivateBus.configuration(directory: runtime).write(toFile: config, atomically: true, encoding: .utf8)
        chown(config, uid, gid)
        let started = try run("/usr/bin/dbus-daemon", ["--config-file=\(config)", "--fork", "--print-address=1", "--print-pid=1"])
        let lines = started.stdout.split(separator: "\n").map(String.init)
        guard lines.count == 2, let pid = pid_t(lines[1]) else { throw POSIXError(.EIO) }
        busAddress = lines[0]
        children.append(pid)
        if kind == .x11 {
            // A display number no other server holds (tests run side by side).
            mkdir("/tmp/.X11-unix", 0o1777)
            chmod("/tmp/.X11-unix", 0o1777)
            display = ((100 + Int(getpid()) % 800)...).first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)") }!
            server = try spawn("/usr/bin/Xvfb", [":\(display)", "-screen", "0", "1280x720x24", "-nolisten", "tcp"])
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)") { usleep(10_000) }
            guard FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)") else { throw POSIXError(.ETIMEDOUT) }
            return
        }
        server = try spawn("/usr/bin/sway", ["-c", "/dev/null"], environment: [
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
        ])
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: runtime + "/wayland-1") { usleep(10_000) }
        guard FileManager.default.fileExists(atPath: runtime + "/wayland-1") else { throw POSIXError(.ETIMEDOUT) }
    }

    /// The environment of a client of this desktop.
    var environment: [String: String] {
        var variables = [
            "HOME": runtime, "XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": busAddress,
            "PATH": "/usr/local/bin:/usr/bin:/bin", "TOASTD_SOCKET": runtime + "/toastd.sock",
        ]
        if kind == .x11 { variables["DISPLAY"] = ":\(display)" } else { variables["WAYLAND_DISPLAY"] = "wayland-1" }
        return variables
    }

    /// argv, run as the desktop's user with its environment.
    private func command(_ executable: String, _ arguments: [String], _ extra: [String: String]) -> (String, [String]) {
        let variables = environment.merging(extra) { $1 }.map { "\($0.key)=\($0.value)" }.sorted()
        if getuid() != 0 { return ("/usr/bin/env", ["-i"] + variables + [executable] + arguments) }
        return ("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "/usr/bin/env", "-i"] + variables + [executable] + arguments)
    }

    /// Runs a program as the desktop's user and waits for it.
    func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> DaemonFixture.Outcome {
        let (program, argv) = command(executable, arguments, extra)
        return try DaemonFixture.run(program, argv)
    }

    /// Starts a program as the desktop's user; stopped with the desktop.
    func spawn(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:], stderr: String? = nil) throws -> pid_t {
        let (program, argv) = command(executable, arguments, extra)
        let pid = try DaemonFixture.spawn(program, argv, stderr: stderr ?? "/dev/null")
        children.append(pid)
        return pid
    }

    func stop(_ pid: pid_t, signal: Int32 = SIGTERM) {
        kill(pid, signal)
        DaemonFixture.wait(pid)
        children.removeAll { $0 == pid }
    }

    deinit {
        for pid in children.reversed() {
            kill(pid, SIGTERM)
            DaemonFixture.wait(pid)
        }
        TemporaryDirectory.removeTree(runtime)
    }
}
