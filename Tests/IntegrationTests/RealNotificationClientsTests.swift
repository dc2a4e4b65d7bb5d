// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore
import ToastFreedesktop
import ToastSystem

/// toastd --freedesktop against clients written outside this project: a
/// libnotify C program (built here with `pkg-config libnotify`, as any app
/// links it), dbus-python, gdbus, busctl and notify-send, each on a private
/// bus. What a desktop user meets on the first day (issue #40).
@Suite("Real notification clients against toastd", .serialized)
struct RealNotificationClientsTests {
    static let clients = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "Clients")
    static let python = "/usr/bin/python3"
    static let available = FreedesktopBridgeTests.available
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/pkg-config")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc")
        && (try? DaemonFixture.run(python, ["-c", "import dbus"]).status) == 0
        && (try? DaemonFixture.run("/usr/bin/pkg-config", ["--exists", "libnotify"]).status) == 0

    /// The libnotify client, compiled once per run, beside the test
    /// binaries (a build's, not /tmp's, to keep).
    static let libnotifyClient: String? = {
        let output = DaemonFixture.binaryDirectory.appending(path: "libnotify-client").path
        let building = output + "-\(getpid())"
        guard let flags = try? DaemonFixture.run("/usr/bin/pkg-config", ["--cflags", "--libs", "libnotify"]), flags.status == 0 else { return nil }
        let arguments = ["-O1", "-o", building, clients.appending(path: "libnotify-client.c").path]
            + flags.stdout.split(separator: " ").map(String.init)
        // Built under a name of its own, then renamed: another test process
        // may be running the one already there.
        guard let built = try? DaemonFixture.run("/usr/bin/cc", arguments), built.status == 0, rename(building, output) == 0 else {
            unlink(building)
            return nil
        }
        return output
    }()

    typealias Session = FreedesktopBridgeTests.Session

    static func python(_ session: Session, _ arguments: String...) throws -> DaemonFixture.Outcome {
        try python(session, arguments)
    }

    static func python(_ session: Session, _ arguments: [String]) throws -> DaemonFixture.Outcome {
        try session.run(python, [clients.appending(path: "dbus_client.py").path] + arguments)
    }

    /// Starts the libnotify client; its output goes to `output`.
    static func libnotify(_ session: Session, _ arguments: [String], output: String) throws -> pid_t {
        let client = try #require(libnotifyClient, "the libnotify client did not build")
        return try DaemonFixture.spawn(client, arguments, environment: session.environment, stdout: output)
    }

    /// The id a client printed ("id N"), once it has.
    static func printedID(_ output: String) -> Int64? {
        for _ in 0..<500 {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("id ") }) { return Int64(line.dropFirst(3)) }
            usleep(10_000)
        }
        return nil
    }

    @Test(.enabled(if: available))
    func twoAppsWithTheSameTextGetTheirOwnIdsAndTheirOwnCallbacks() throws {
        let session = try Session()
        let one = session.daemon.directory.appending(path: "one.out").path
        let two = session.daemon.directory.appending(path: "two.out").path
        let first = try Self.libnotify(session, ["app-one", "Upload failed", "photos.zip", "--action", "retry", "Retry", "--wait", "4000"], output: one)
        let second = try Self.libnotify(session, ["app-two", "Upload failed", "photos.zip", "--action", "retry", "Retry", "--wait", "4000"], output: two)
        let firstID = try #require(Self.printedID(one))
        let secondID = try #require(Self.printedID(two))
        #expect(firstID != secondID, "the spec: an id no other notification has")
        // notify-send with the same text twice, as dunst gives 2 and 3.
        let a = try session.notifySend("-p", "-a", "app-one", "Reminder", "stand up").stdout
        let b = try session.notifySend("-p", "-a", "app-two", "Reminder", "stand up").stdout
        let c = try session.notifySend("-p", "-a", "app-two", "Reminder", "stand up").stdout
        #expect(Set([a, b, c]).count == 3)
        // One invoke reaches one process.
        #expect(try session.daemon.toastctl("invoke", "\(firstID)", "--action", "retry").status == 0)
        _ = DaemonFixture.wait(first)
        #expect(try String(contentsOfFile: one, encoding: .utf8).contains("action retry"))
        #expect(try session.daemon.toastctl("dismiss", "\(secondID)").status == 0)
        _ = DaemonFixture.wait(second)
        let secondOutput = try String(contentsOfFile: two, encoding: .utf8)
        #expect(!secondOutput.contains("action"), "\(secondOutput)")
        #expect(secondOutput.contains("closed 2"), "dismissed by the user: \(secondOutput)")
    }

    @Test(.enabled(if: available))
    func aSenderReplacesAndClosesOnlyWhatItSent() throws {
        let session = try Session()
        let mine = try session.notifySend("-p", "-a", "app-one", "Reminder", "mine").stdout
        // Another app's replaces_id (dbus-python): a new notification; app-one's is untouched.
        let other = try Self.python(session, "notify", "app-two", mine, "Hijack", "Deployment FAILED. Press Retry")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout != mine)
        #expect(try session.toast(mine)?["message"] == "mine")
        // Another connection's CloseNotification (gdbus, dbus-python): nothing changes.
        #expect(try session.gdbus("CloseNotification", mine).status == 0)
        #expect(try Self.python(session, "close", mine).status == 0)
        usleep(100_000)
        #expect(try session.toast(mine) != nil, "still live")
        // A socket toast (a deploy prompt waiting on its answer) is no one's on the bus.
        let prompt = try session.daemon.toastctl("add", "Deploy to prod?", "--action", "yes:Deploy", "--duration", "indefinite").stdout
        let busctl = try session.run(
            "/usr/bin/busctl",
            ["--user", "call", "--", "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
             "Notify", "susssasa{sv}i", "evil", prompt, "", "Deployment FAILED", "Press Retry", "2", "yes", "Retry", "0", "-1"]
        )
        #expect(busctl.status == 0, "\(busctl.stderr)")
        #expect(!busctl.stdout.contains("u \(prompt)\n"), "a new id: \(busctl.stdout)")
        #expect(try session.gdbus("CloseNotification", prompt).status == 0)
        usleep(100_000)
        let toast = try #require(try session.toast(prompt))
        #expect(toast["message"] == "Deploy to prod?")
        #expect(toast["actions"]?.arrayCount == 1)
        // The same app replaces its own from a new process (a volume script's `notify-send -r`).
        let again = try session.notifySend("-p", "-a", "app-one", "-r", mine, "Reminder", "updated")
        #expect(again.stdout == mine)
        #expect(try session.toast(mine)?["message"] == "updated")
        // The connection that showed it closes it: reason 3, and it is gone.
        let closed = try Self.python(session, "notify-close", "app-three", "close me")
        #expect(closed.status == 0, "\(closed.stderr)")
        usleep(100_000)
        #expect(try session.toast(closed.stdout) == nil)
        // toastctl reaches every toast, the bus's too.
        #expect(try session.daemon.toastctl("dismiss", mine).status == 0)
        #expect(try session.toast(mine) == nil)
    }

    @Test(.enabled(if: available))
    func bodiesImagesActionsAndHintsAreKept() throws {
        let session = try Session()
        for (body, message) in [
            ("I <3 toasts; load < 50%", "I <3 toasts; load < 50%"), ("if a < b and c > d", "if a < b and c > d"),
            ("<b>bold</b> &amp; <i>kept</i>", "bold & kept"),
        ] {
            let id = try session.notifySend("-p", "Compare", body).stdout
            #expect(try session.toast(id)?["message"]?.stringValue == message, "\(body)")
        }
        let markup = try session.notifySend("-p", "Markup", "<b>bold</b> &amp; <i>kept</i>").stdout
        #expect(try session.toast(markup)?["markup"] == "<b>bold</b> &amp; <i>kept</i>")
        // A malformed image-data is left out; the notification is kept.
        let client = try NotificationsClient(address: session.address)
        let bad = try client.notify(Notification(summary: "bad image"), image: .init(width: 64, height: 64, rowstride: 4, hasAlpha: true, channels: 4, bytes: 16))
        let kept = try #require(try session.toast("\(bad)"))
        #expect(kept["message"] == "bad image")
        #expect(kept["image"] == nil)
        let good = try client.notify(Notification(summary: "good image"), image: .init(width: 128, height: 64, rowstride: 512, hasAlpha: true, channels: 4, bytes: 512 * 64))
        let image = try #require(try session.toast("\(good)")?["image"])
        #expect(image["width"] == 64 && image["height"] == 32, "scaled to 64 px: \(image)")
        let path = try session.notifySend("-p", "-i", "/usr/share/pixmaps/debian-logo.png", "with a picture").stdout
        #expect(try session.toast(path)?["image"]?["path"] == "/usr/share/pixmaps/debian-logo.png")
        // Ten actions, all kept, default among them as the body's click.
        let pairs = ["default", ""] + (1...9).flatMap { ["k\($0)", "Action \($0)"] }
        let ten = try Self.python(session, ["notify", "app", "0", "Ten", "actions"] + pairs)
        #expect(ten.status == 0, "\(ten.stderr)")
        let actions = try #require(try session.toast(ten.stdout)?["actions"])
        #expect(actions.arrayCount == 10)
        // The hints are kept as members.
        let hinted = try session.notifySend(
            "-p", "-c", "email.arrived", "-h", "string:desktop-entry:org.gnome.Evolution", "-h", "string:sound-name:message-new-email",
            "-u", "low", "Mail", "from Ann"
        ).stdout
        let toast = try #require(try session.toast(hinted))
        #expect(toast["category"] == "email.arrived")
        #expect(toast["desktopEntry"] == "org.gnome.Evolution")
        #expect(toast["soundName"] == "message-new-email")
        #expect(toast["urgency"] == "low")
        #expect(toast["dedupe"] == false)
        // A stack tag replaces the same app's, in place and without a count.
        let first = try session.notifySend("-p", "-a", "osd", "-h", "string:x-dunst-stack-tag:volume", "Volume 10%").stdout
        for level in 2...6 { _ = try session.notifySend("-p", "-a", "osd", "-h", "string:x-dunst-stack-tag:volume", "Volume \(level)0%") }
        #expect(try session.toast(first)?["repeat"] == 1)
        #expect(try session.toast(first)?["message"] == "Volume 60%")
        // Another app's same tag is its own.
        let theirs = try session.notifySend("-p", "-a", "other-osd", "-h", "string:synchronous:volume", "Theirs").stdout
        #expect(theirs != first)
    }

    @Test(.enabled(if: available))
    func eachHintIsMatchedByARule() throws {
        let bus = try FreedesktopBridgeTests.Bus()
        let config = """
            [[rule]]
            match = { category = "email.*" }
            set = { scene = "mail" }
            [[rule]]
            match = { desktop_entry = "org.gnome.Evolution" }
            set = { duration = "indefinite" }
            [[rule]]
            match = { urgency = "critical" }
            set = { level = 95 }
            [[rule]]
            match = { icon = "audio-volume-*" }
            set = { alignment = "center" }
            [[rule]]
            match = { actionable = true }
            set = { dismissible = false }
            """
        let directory = try TemporaryDirectory(prefix: "toastd-rules")
        defer { directory.remove() }
        let file = directory.path + "/config.toml"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        let daemon = try DaemonFixture(arguments: ["--freedesktop", "--config", file], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = FreedesktopBridgeTests.waitForBridge(daemon, "serving")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "TOASTD_SOCKET": daemon.socket]
        func send(_ arguments: String...) throws -> JSONValue? {
            let id = try DaemonFixture.run("/usr/bin/notify-send", ["-p"] + arguments, environment: environment).stdout
            let list = try daemon.connect().request(["op": "list"], timeout: 5_000)
            guard case .array(let toasts)? = list["result"]?["toasts"] else { return nil }
            return toasts.first { $0["id"]?.intValue == Int64(id) }
        }
        #expect(try send("-c", "email.arrived", "mail")?["scene"] == "mail")
        #expect(try send("-h", "string:desktop-entry:org.gnome.Evolution", "entry")?["duration"] == "indefinite")
        #expect(try send("-u", "critical", "urgent")?["level"] == 95)
        #expect(try send("-i", "audio-volume-high", "volume")?["alignment"] == "center")
        let plain = try #require(try send("-u", "normal", "nothing special"))
        #expect(plain["scene"] == "default" && plain["level"] == nil && plain["alignment"] != "center")
    }

    static let hasGObject = (try? DaemonFixture.run(python, ["-c", "from gi.repository import Gio"]).status) == 0

    /// GLib's GNotification speaks freedesktop when nothing owns
    /// org.gtk.Notifications: `default` with an empty label, the app id as
    /// `desktop-entry`. The default is the body's click (no button), and
    /// invoking it activates the app's action.
    @Test(.enabled(if: available && hasGObject))
    func gNotificationsDefaultIsTheBodysClick() throws {
        let session = try Session()
        let output = session.daemon.directory.appending(path: "gnotification.out").path
        let client = try DaemonFixture.spawn(
            Self.python, [Self.clients.appending(path: "gnotification_client.py").path, "org.example.Builder", "5"],
            environment: session.environment, stdout: output
        )
        var toast: JSONValue?
        for _ in 0..<500 where toast == nil {
            let list = try session.daemon.connect().request(["op": "list"], timeout: 5_000)
            if case .array(let toasts)? = list["result"]?["toasts"] { toast = toasts.first { $0["title"] == "Build finished" } }
            usleep(10_000)
        }
        let found = try #require(toast)
        #expect(found["desktopEntry"] == "org.example.Builder")
        guard case .array(let actions)? = found["actions"] else { Issue.record("no actions"); return }
        #expect(actions.map { $0["id"]?.stringValue } == ["default", "app.snooze"])
        #expect(actions.last?["label"] == "Snooze")
        let id = try #require(found["id"]?.intValue)
        #expect(try session.daemon.toastctl("invoke", "\(id)").status == 0, "toastctl invoke ID: the default")
        _ = DaemonFixture.wait(client)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(printed.contains("activated open"), "\(printed)")
    }

    /// notify2 and desktop-notifier from PyPI (scripts/test.sh installs
    /// them into .build/pyclients; without them, this test is skipped).
    static let pypi = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: ".build/pyclients").path
    static let hasPyPIClients = FileManager.default.fileExists(atPath: pypi + "/notify2.py")
        && FileManager.default.fileExists(atPath: pypi + "/desktop_notifier")

    @Test(.enabled(if: available && hasPyPIClients))
    func notify2AndDesktopNotifier() throws {
        let session = try Session()
        func run(_ arguments: String...) throws -> DaemonFixture.Outcome {
            try DaemonFixture.run(
                Self.python, [Self.clients.appending(path: "pypi_clients.py").path] + arguments,
                environment: session.environment.merging(["PYTHONPATH": Self.pypi]) { $1 }
            )
        }
        // notify2 shows with an action, then closes it on its own connection.
        let shown = try run("notify2", "Upload failed")
        #expect(shown.status == 0, "\(shown.stderr)")
        usleep(100_000)
        #expect(try session.toast(shown.stdout) == nil, "its own close closed it")
        let again = try run("notify2", "Upload failed")
        #expect(again.stdout != shown.stdout, "an id of its own")
        // desktop-notifier: a button and an on-click, which is `default`.
        let sent = try run("desktop-notifier", "Report ready")
        #expect(sent.status == 0, "\(sent.stderr)")
        let list = try session.daemon.connect().request(["op": "list"], timeout: 5_000)
        guard case .array(let toasts)? = list["result"]?["toasts"] else { Issue.record("no list"); return }
        let toast = try #require(toasts.first { $0["title"] == "Report ready" })
        guard case .array(let actions)? = toast["actions"] else { Issue.record("no actions"); return }
        #expect(actions.contains { $0["id"] == "default" }, "the on-click is the body's click")
        #expect(actions.contains { $0["label"] == "Open" })
    }

    @Test(.enabled(if: available))
    func theCapabilitiesAreWhatIsImplemented() throws {
        let session = try Session()
        let capabilities = try Self.python(session, "caps").stdout.split(separator: "\n").map(String.init)
        #expect(Set(capabilities) == Set(NotificationMapping.capabilities))
        #expect(capabilities.contains("body-markup"), "toast-overlay draws it")
        #expect(!capabilities.contains("body-hyperlinks") && !capabilities.contains("body-images"), "drawn, but not followed or shown")
        #expect(!capabilities.contains("sound"), "toastd plays no sound")
        // persistence: a notification survives toastd's restart.
        let id = try session.notifySend("-p", "-t", "0", "kept across a restart").stdout
        session.daemon.process.terminate()
        session.daemon.process.waitUntilExit()
        let restarted = try DaemonFixture.restart(on: session.daemon)
        defer { restarted.terminate(); restarted.waitUntilExit() }
        let list = try DaemonFixture.toastctl(["list", "--json"], socket: session.daemon.socket).stdout
        #expect(list.contains("kept across a restart") && list.contains("\"id\":\(id)"), "\(list)")
    }
}
