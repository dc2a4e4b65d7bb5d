// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore

/// toast-notify against a real dunst under Xvfb, on a private bus: toastd's
/// toasts appear in dunst, update in place there, and what a person does in
/// dunst (close, an action) reaches toastd.
@Suite("toast-notify with a real dunst", .serialized)
struct ToastNotifyTests {
    static let available = ["/usr/bin/dunst", "/usr/bin/dunstctl", "/usr/bin/Xvfb", "/usr/bin/dbus-daemon"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    final class Desktop {
        let session: FreedesktopBridgeTests.Bus
        let xvfb: pid_t
        var dunst: pid_t
        let display: String

        init() throws {
            session = try FreedesktopBridgeTests.Bus()
            // Xvfb picks a free display itself and writes its number once it
            // accepts clients: a number picked here could be taken, or held
            // by a lock file whose pid a live process now has.
            let announced = FileManager.default.temporaryDirectory.appending(path: "xvfb-\(UUID().uuidString.prefix(8))").path
            defer { try? FileManager.default.removeItem(atPath: announced) }
            xvfb = try DaemonFixture.spawn("/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp"], stdout: announced)
            var number: Int?
            for _ in 0..<500 where number == nil {
                let text = (try? String(contentsOfFile: announced, encoding: .utf8)) ?? ""
                if text.hasSuffix("\n") { number = Int(text.dropLast()) } else { usleep(10_000) }
            }
            guard let number else {
                kill(xvfb, SIGTERM)
                DaemonFixture.wait(xvfb)
                throw POSIXError(.ETIMEDOUT)
            }
            display = ":\(number)"
            dunst = try DaemonFixture.spawn("/usr/bin/dunst", [], environment: ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": session.address])
            _ = try wait { try count() != nil }
        }

        /// What dunst shows now, or nil while it is not up.
        func count() throws -> Int? {
            let outcome = try DaemonFixture.run("/usr/bin/dunstctl", ["count", "displayed"], environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
            return outcome.status == 0 ? Int(outcome.stdout) : nil
        }

        /// Kills dunst and starts a new one on the same bus and display.
        func restartDunst() throws {
            kill(dunst, SIGKILL)
            DaemonFixture.wait(dunst)
            dunst = try DaemonFixture.spawn("/usr/bin/dunst", [], environment: ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": session.address])
            _ = try wait { try count() != nil }
        }

        func dunstctl(_ arguments: String...) throws -> DaemonFixture.Outcome {
            try DaemonFixture.run("/usr/bin/dunstctl", arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
        }

        /// Up to 10 s: each try runs dunstctl, and a loaded machine is slow to answer.
        func wait(until condition: () throws -> Bool) rethrows -> Bool {
            for _ in 0..<1_000 {
                if try condition() { return true }
                usleep(10_000)
            }
            return false
        }

        deinit {
            kill(dunst, SIGKILL)
            DaemonFixture.wait(dunst)
            // SIGTERM: Xvfb removes its lock file (/tmp/.X<n>-lock) on the way out.
            kill(xvfb, SIGTERM)
            DaemonFixture.wait(xvfb)
        }
    }

    /// toast-notify between `daemon` and the desktop's notifier; its log in `notify.log`.
    static func mirror(_ desktop: Desktop, _ daemon: DaemonFixture) throws -> pid_t {
        try DaemonFixture.spawn(
            DaemonFixture.binaryDirectory.appending(path: "toast-notify").path, [],
            environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.session.address, "TOASTD_SOCKET": daemon.socket],
            stderr: daemon.directory.appending(path: "notify.log").path
        )
    }

    static func stop(_ mirror: pid_t) {
        kill(mirror, SIGTERM)
        DaemonFixture.wait(mirror)
    }

    static func history(_ daemon: DaemonFixture) throws -> [JSONValue] {
        guard case .array(let entries)? = try daemon.connect().request(["op": "history"], timeout: 5_000)["result"]?["entries"] else { return [] }
        return entries
    }

    @Test(.enabled(if: available)) func toastsAppearInDunstAndWhatAPersonDoesThereReachesToastd() throws {
        let desktop = try Desktop()
        let daemon = try DaemonFixture()
        let mirror = try Self.mirror(desktop, daemon)
        defer { Self.stop(mirror) }
        usleep(500_000)
        #expect(try daemon.toastctl("add", "Build finished", "--title", "CI", "--duration", "indefinite").status == 0)
        #expect(try desktop.wait { try desktop.count() == 1 })
        // An update (here a dedupe by reuse id) replaces the notification in place.
        #expect(try daemon.toastctl("add", "Uploading 10%", "--reuse-id", "up", "--duration", "indefinite").status == 0)
        #expect(try desktop.wait { try desktop.count() == 2 })
        #expect(try daemon.toastctl("add", "Uploading 60%", "--reuse-id", "up", "--duration", "indefinite").status == 0)
        usleep(300_000)
        #expect(try desktop.count() == 2)
        // Closing it in dunst dismisses the toast.
        #expect(try desktop.dunstctl("close").status == 0)
        #expect(try desktop.wait { try Self.history(daemon).contains { $0["reason"] == "user" } })
        // A toast that ends in toastd is closed in dunst.
        #expect(try daemon.toastctl("clear", "--force").status == 0)
        #expect(try desktop.wait { try desktop.count() == 0 })
        // An action invoked in dunst (on its only notification) is invoked in toastd.
        #expect(try daemon.toastctl("add", "Deploy?", "--action", "go:Go", "--duration", "indefinite").status == 0)
        #expect(try desktop.wait { try desktop.count() == 1 })
        #expect(try desktop.dunstctl("action", "0").status == 0)
        #expect(try desktop.wait { try Self.history(daemon).contains { $0["reason"] == "action" } })
        #expect(try desktop.wait { try desktop.count() == 0 })
    }

    /// The notifier restarts under toast-notify (a new owner of the name,
    /// numbering from 1 again): the toast is shown again on the new one,
    /// a later dismiss in toastd closes that notification and nothing else,
    /// and what a person does there reaches toastd. Text reaches a notifier
    /// that reads markup escaped: a toast's `<b>` is not drawn bold.
    @Test(.enabled(if: available)) func aNotifierRestartIsFollowed() throws {
        let desktop = try Desktop()
        let daemon = try DaemonFixture()
        let mirror = try Self.mirror(desktop, daemon)
        defer { Self.stop(mirror) }
        usleep(500_000)
        let id = try daemon.toastctl("add", "<b>not bold</b> & done", "--title", "CI", "--duration", "indefinite").stdout
        #expect(try desktop.wait { try desktop.count() == 1 })
        try desktop.restartDunst()
        #expect(try desktop.wait { try desktop.count() == 1 }, "shown again on the new notifier")
        // The new dunst's own notification, shown beside the toast.
        #expect(try DaemonFixture.run("/usr/bin/notify-send", ["-t", "0", "someone else's"], environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.session.address]).status == 0)
        #expect(try desktop.wait { try desktop.count() == 2 })
        #expect(try daemon.toastctl("dismiss", id).status == 0)
        #expect(try desktop.wait { try desktop.count() == 1 }, "the toast's notification closed, the other kept")
        // dunst keeps the body as it came: escaped, so drawn as written.
        let history = try JSONValue.parse(try desktop.dunstctl("history").stdout)
        guard case .array(let pages)? = history["data"], case .array(let entries)? = pages.first else {
            Issue.record("no dunst history")
            return
        }
        let bodies = entries.compactMap { $0["body"]?["data"]?.stringValue }
        #expect(bodies.contains("&lt;b&gt;not bold&lt;/b&gt; &amp; done"), "\(bodies)")
        // An action on the new notifier reaches toastd.
        #expect(try daemon.toastctl("add", "Deploy?", "--action", "go:Go", "--duration", "indefinite").status == 0)
        #expect(try desktop.wait { try desktop.count() == 2 })
        #expect(try desktop.dunstctl("close-all").status == 0)
        #expect(try desktop.wait { try Self.history(daemon).contains { $0["reason"] == "user" && $0["toast"]?["message"] == "Deploy?" } })
        let log = (try? String(contentsOf: daemon.directory.appending(path: "notify.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("took the notifications name"), "\(log)")
    }

    /// toastd restarts under it (a watchdog restart): toast-notify resumes
    /// and goes on mirroring.
    @Test(.enabled(if: available)) func itReconnectsWhenToastdRestarts() throws {
        let desktop = try Desktop()
        let daemon = try DaemonFixture()
        let mirror = try DaemonFixture.spawn(
            DaemonFixture.binaryDirectory.appending(path: "toast-notify").path, [],
            environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.session.address, "TOASTD_SOCKET": daemon.socket]
        )
        defer {
            kill(mirror, SIGTERM)
            DaemonFixture.wait(mirror)
        }
        usleep(500_000)
        #expect(try daemon.toastctl("add", "before", "--duration", "indefinite").status == 0)
        #expect(try desktop.wait { try desktop.count() == 1 })
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        let restarted = try DaemonFixture.restart(on: daemon)
        defer { restarted.terminate(); restarted.waitUntilExit() }
        #expect(try DaemonFixture.toastctl(["add", "after", "--duration", "indefinite"], socket: daemon.socket).status == 0)
        // The same instance (durable state): it resumes, and shows the new
        // toast beside the old one, which it does not show twice.
        #expect(try desktop.wait { try desktop.count() == 2 })
        usleep(600_000)
        #expect(try desktop.count() == 2)
    }

    @Test(.enabled(if: FreedesktopBridgeTests.available)) func itRefusesToMirrorToastdOntoItself() throws {
        let session = try FreedesktopBridgeTests.Session()
        let outcome = try DaemonFixture.run(
            "/usr/bin/timeout", ["10", DaemonFixture.binaryDirectory.appending(path: "toast-notify").path], environment: session.environment
        )
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("toastd itself"), "\(outcome.stderr)")
    }
}
