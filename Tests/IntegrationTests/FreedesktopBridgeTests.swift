// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CommandLineSupport
import ToastKit
import ToastCore
import ToastFreedesktop
import SDBus

/// toastd --freedesktop on a private session bus (never the host's), with
/// real notify-send, gdbus and busctl, and a small sd-bus client for the
/// calls no command line can make.
@Suite("The freedesktop bridge on a real bus", .serialized)
struct FreedesktopBridgeTests {
    static let tools = ["/usr/bin/dbus-daemon", "/usr/bin/notify-send", "/usr/bin/gdbus", "/usr/bin/busctl"]
    static let available = tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// A private session bus whose service directory is empty, so that
    /// nothing else can be activated on it.
    final class Bus {
        let bus: PrivateBus
        var address: String { bus.address }
        var pid: pid_t { bus.pid }
        /// The address without the bus's guid, as systemd gives it: a
        /// client may connect to a restarted bus at the same path.
        var path: String { bus.pathAddress }

        init() throws {
            bus = try PrivateBus()
        }

        private init(_ bus: PrivateBus) {
            self.bus = bus
        }

        /// The same bus restarted: a new daemon at the same path.
        func restarted() throws -> Bus { Bus(try bus.restarted()) }
    }

    /// Waits until toastd's status says the bridge is in a state whose
    /// description starts with `prefix`; returns the last description.
    static func waitForBridge(_ daemon: DaemonFixture, _ prefix: String) -> String {
        var state = ""
        for _ in 0..<500 where !state.hasPrefix(prefix) {
            state = (try? daemon.connect().request(["op": "status"], timeout: 2_000))?["result"]?["freedesktop"]?.stringValue ?? ""
            usleep(10_000)
        }
        return state
    }

    /// A private bus, and toastd serving the name on it.
    final class Session {
        let bus: Bus
        let daemon: DaemonFixture
        var address: String { bus.address }
        var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address, "TOASTD_SOCKET": daemon.socket] }

        init() throws {
            bus = try Bus()
            daemon = try DaemonFixture(arguments: ["--freedesktop", "--log-level", "warning"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            _ = FreedesktopBridgeTests.waitForBridge(daemon, "serving")
        }

        func run(_ tool: String, _ arguments: [String]) throws -> DaemonFixture.Outcome {
            try DaemonFixture.run(tool, arguments, environment: environment)
        }

        func notifySend(_ arguments: String...) throws -> DaemonFixture.Outcome { try run("/usr/bin/notify-send", arguments) }

        func toast(_ id: String) throws -> JSONValue? {
            let list = try daemon.connect().request(["op": "list"], timeout: 5_000)
            guard case .array(let toasts)? = list["result"]?["toasts"] else { return nil }
            return toasts.first { $0["id"]?.intValue == Int64(id) }
        }

        func gdbus(_ method: String, _ arguments: String...) throws -> DaemonFixture.Outcome {
            try run(
                "/usr/bin/gdbus",
                ["call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
                 "--method", "org.freedesktop.Notifications.\(method)"] + arguments
            )
        }

        /// Starts `gdbus monitor` on the name; its lines land in the returned file.
        func monitor() throws -> (pid_t, String) {
            let file = daemon.directory.appending(path: "monitor-\(UUID().uuidString.prefix(4))").path
            let pid = try DaemonFixture.spawn(
                "/usr/bin/gdbus", ["monitor", "--session", "--dest", "org.freedesktop.Notifications"], environment: environment, stdout: file
            )
            usleep(300_000)
            return (pid, file)
        }

    }

    static func waitFor(_ file: String, _ text: String) -> String {
        for _ in 0..<500 {
            let contents = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            if contents.contains(text) { return contents }
            usleep(10_000)
        }
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    @Test(.enabled(if: available)) func notifySendLandsAsAToastWithTheSpecsMapping() throws {
        let session = try Session()
        let hello = try session.notifySend("-p", "-a", "mail", "New mail", "From <b>Ann</b>")
        #expect(hello.status == 0, "\(hello.stderr)")
        let toast = try #require(try session.toast(hello.stdout))
        #expect(toast["title"] == "New mail")
        #expect(toast["message"] == "From Ann")
        #expect(toast["source"] == "mail")
        #expect(toast["role"] == "info")

        // The same app replaces its own, from another process.
        let replaced = try session.notifySend("-p", "-a", "mail", "-r", hello.stdout, "New mail", "From Bob")
        #expect(replaced.stdout == hello.stdout)
        #expect(try session.toast(hello.stdout)?["message"] == "From Bob")

        let critical = try session.notifySend("-p", "-u", "critical", "-t", "0", "Disk full")
        #expect(try session.toast(critical.stdout)?["role"] == "failure")
        #expect(try session.toast(critical.stdout)?["duration"] == "indefinite")

        let progress = try session.notifySend("-p", "-h", "int:value:40", "Copying")
        #expect(try session.toast(progress.stdout)?["progress"] == 0.4)

        let first = try session.notifySend("-p", "-h", "string:x-dunst-stack-tag:vol", "Volume 10%")
        let second = try session.notifySend("-p", "-h", "string:x-dunst-stack-tag:vol", "Volume 20%")
        #expect(first.stdout == second.stdout)
        #expect(try session.toast(second.stdout)?["repeat"] == 1, "a replacement in place, not a repeat")
        #expect(try session.toast(second.stdout)?["message"] == "Volume 20%")

        #expect(try session.notifySend("-e", "transient").status == 0)

        let info = try session.gdbus("GetServerInformation")
        #expect(info.stdout == "('toastd', 'toastd', '0.1.0', '1.2')", "\(info.stderr)")
        let introspection = try session.run("/usr/bin/busctl", ["--user", "introspect", "org.freedesktop.Notifications", "/org/freedesktop/Notifications"])
        #expect(introspection.stdout.contains(".Notify") && introspection.stdout.contains("susssasa{sv}i"), "\(introspection.stdout)\(introspection.stderr)")
        #expect(introspection.stdout.contains(".NotificationClosed"))
        let gdbus = try session.run(
            "/usr/bin/gdbus", ["introspect", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications"]
        )
        #expect(gdbus.stdout.contains("Notify(in  s app_name,"), "\(gdbus.stdout)\(gdbus.stderr)")
        #expect(gdbus.stdout.contains("NotificationClosed(u id,"), "\(gdbus.stdout)")
    }

    @Test(.enabled(if: available)) func actionsWaitAndCloseReasonsReachTheBus() throws {
        let session = try Session()
        let (monitor, signals) = try session.monitor()
        defer { kill(monitor, SIGKILL); DaemonFixture.wait(monitor) }

        // notify-send -A ... --wait prints the action toastctl invokes.
        let answer = session.daemon.directory.appending(path: "answer").path
        let waiting = try DaemonFixture.spawn(
            "/usr/bin/notify-send", ["-A", "yes=Yes", "-A", "no=No", "--wait", "Proceed?"], environment: session.environment, stdout: answer
        )
        var id: Int64?
        for _ in 0..<300 where id == nil {
            let list = try session.daemon.connect().request(["op": "list"], timeout: 5_000)
            if case .array(let toasts)? = list["result"]?["toasts"] { id = toasts.first { $0["message"] == "Proceed?" }?["id"]?.intValue }
            usleep(10_000)
        }
        let toastID = try #require(id)
        #expect(try session.daemon.toastctl("invoke", "\(toastID)", "--action", "yes").status == 0)
        #expect(DaemonFixture.wait(waiting) == 0)
        #expect(try String(contentsOfFile: answer, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "yes")
        #expect(Self.waitFor(signals, "ActionInvoked (uint32 \(toastID), 'yes')").contains("ActionInvoked (uint32 \(toastID), 'yes')"))

        // CloseNotification: reason 3. A person's dismiss: reason 2. Expiry: reason 1.
        // (the connection that showed it closes it: dbus-python, one connection)
        let closedCall = try session.run(
            RealNotificationClientsTests.python, [RealNotificationClientsTests.clients.appending(path: "dbus_client.py").path, "notify-close", "app", "close me"]
        )
        let closed = closedCall.stdout
        let dismissed = try session.notifySend("-p", "-t", "0", "dismiss me").stdout
        #expect(try session.daemon.toastctl("dismiss", dismissed).status == 0)
        let expired = try session.notifySend("-p", "-t", "200", "-h", "string:x-dunst-stack-tag:other", "expire me").stdout
        let text = Self.waitFor(signals, "NotificationClosed (uint32 \(expired), uint32 1)")
        #expect(text.contains("NotificationClosed (uint32 \(closed), uint32 3)"), "\(text)")
        #expect(text.contains("NotificationClosed (uint32 \(dismissed), uint32 2)"), "\(text)")
        #expect(text.contains("NotificationClosed (uint32 \(expired), uint32 1)"), "\(text)")
        // Closing an id that is gone is harmless.
        #expect(try session.gdbus("CloseNotification", "999999").status == 0)
    }

    /// How a durable toastd goes away under its apps.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        /// Stopped and started (`systemctl --user restart`).
        case restart
        /// Killed (`kill -9`, the watchdog's abort), a moment after the apps' last call.
        case crash

        var testDescription: String { rawValue }
    }

    /// A durable toastd restarted under its apps, or killed and started
    /// again: each notification still has its owner (the same app
    /// replaces it, the same connection closes it, another app's
    /// `replaces_id` gets a new one) and its action keys. A crash keeps
    /// them because they are written a moment after they change
    /// (`NotificationServer.rememberDelay`), not only as the bridge stops.
    @Test(.enabled(if: available), arguments: Ending.allCases) func ownersAndActionKeysOutliveARestart(_ ending: Ending) throws {
        let bus = try Bus()
        let state = FileManager.default.temporaryDirectory.appending(path: "toastd-owners-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        func start() throws -> DaemonFixture {
            let daemon = try DaemonFixture(
                arguments: ["--freedesktop", "--log-level", "warning", "--state-dir", state], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]
            )
            #expect(Self.waitForBridge(daemon, "serving").hasPrefix("serving"))
            return daemon
        }
        // One connection, kept across the restart, as a running app's.
        let client = try NotificationsClient(address: bus.address)
        var daemon = try start()
        let volume = try client.notify(Notification(appName: "volume", summary: "Volume 10%", expireTimeout: 0))
        // "go on!" is no toast action id: its toast's action is "a1".
        let ask = try client.notify(Notification(appName: "ask", summary: "Proceed?", actions: ["go on!", "Go"], expireTimeout: 0))
        let mail = try client.notify(Notification(appName: "mail", summary: "New mail", expireTimeout: 0))
        switch ending {
        case .restart:
            daemon.process.terminate()
        case .crash:
            let file = state + "/freedesktop-owners"
            func kept() -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
            func holdsAll() -> Bool { ["\"app\":\"volume\"", "go on!", "\"app\":\"mail\""].allSatisfy(kept().contains) }
            for _ in 0..<500 where !holdsAll() { usleep(10_000) }
            #expect(holdsAll(), "\(kept())")
            kill(daemon.process.processIdentifier, SIGKILL)
        }
        daemon.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: state + "/freedesktop-owners"))

        daemon = try start()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "TOASTD_SOCKET": daemon.socket]
        func toast(_ id: UInt32) throws -> JSONValue? {
            let list = try daemon.connect().request(["op": "list"], timeout: 5_000)
            guard case .array(let toasts)? = list["result"]?["toasts"] else { return nil }
            return toasts.first { $0["id"]?.intValue == Int64(id) }
        }
        #expect(try toast(volume)?["message"] == "Volume 10%", "the toast itself was restored")

        // The action answers with the sender's own key.
        let signals = daemon.directory.appending(path: "signals").path
        let monitor = try DaemonFixture.spawn(
            "/usr/bin/gdbus", ["monitor", "--session", "--dest", "org.freedesktop.Notifications"], environment: environment, stdout: signals
        )
        defer { kill(monitor, SIGKILL); DaemonFixture.wait(monitor) }
        usleep(300_000)
        #expect(try daemon.toastctl("invoke", "\(ask)", "--action", "a1").status == 0)
        let text = Self.waitFor(signals, "ActionInvoked (uint32 \(ask), 'go on!')")
        #expect(text.contains("ActionInvoked (uint32 \(ask), 'go on!')"), "\(text)")

        // The same app replaces its own, from its connection and from a script's.
        #expect(try client.notify(Notification(appName: "volume", replacesID: volume, summary: "Volume 20%", expireTimeout: 0)) == volume)
        #expect(try toast(volume)?["message"] == "Volume 20%")
        let script = try DaemonFixture.run("/usr/bin/notify-send", ["-p", "-a", "volume", "-r", "\(volume)", "-t", "0", "Volume 30%"], environment: environment)
        #expect(script.stdout == "\(volume)", "\(script.stderr)")
        // Another app's replaces_id is a notification of its own.
        let other = try DaemonFixture.run("/usr/bin/notify-send", ["-p", "-a", "intruder", "-r", "\(mail)", "Not yours"], environment: environment)
        #expect(other.stdout != "\(mail)" && !other.stdout.isEmpty)
        #expect(try toast(mail)?["message"] == "New mail")

        // The connection that showed it closes it.
        try client.close(mail)
        for _ in 0..<200 where try toast(mail) != nil { usleep(10_000) }
        #expect(try toast(mail) == nil)
    }

    @Test(.enabled(if: available)) func hostileCallsLeaveToastdUpAndCorrect() throws {
        let session = try Session()
        let client = try NotificationsClient(address: session.address)
        // A 1 MB body is clipped to the toast's limit.
        let big = try client.notify(Notification(summary: "big", body: String(repeating: "b", count: 1 << 20)))
        let toast = try #require(try session.toast("\(big)"))
        #expect(toast["message"]?.stringValue?.utf8.count ?? 0 <= ToastLimits.messageBytes)
        // Malformed image-data is never trusted: left out, the notification kept.
        for image in [
            NotificationsClient.Image(width: 64, height: 64, rowstride: 4, hasAlpha: true, channels: 4, bytes: 16),
            NotificationsClient.Image(width: 2, height: 2, rowstride: 8, hasAlpha: false, channels: 4, bytes: 16),
            NotificationsClient.Image(width: 4_000, height: 4_000, rowstride: 16_000, hasAlpha: true, channels: 4, bytes: 16),
        ] {
            let id = try client.notify(Notification(summary: "img"), image: image)
            #expect(try session.toast("\(id)")?["image"] == nil)
        }
        #expect(try client.notify(Notification(summary: "img"), image: .init(width: 2, height: 2, rowstride: 8, hasAlpha: true, channels: 4, bytes: 16)) > 0)
        // A replaces_id that never existed gets a toast of its own.
        let fresh = try client.notify(Notification(replacesID: 4_000_000, summary: "replacing nothing"))
        #expect(fresh != 4_000_000 && fresh > 0)
        // A caller that hangs up before its reply.
        try NotificationsClient(address: session.address).notifyAndHangUp(Notification(summary: "gone"))
        // 5,000 calls from 10 connections at once.
        let failures = Locked(0)
        let address = session.address
        let threads = (0..<10).map { connection in
            Thread {
                guard let client = try? NotificationsClient(address: address) else { return failures.withLock { $0 += 500 } }
                for index in 0..<500 where (try? client.notify(Notification(summary: "c\(connection) n\(index)"))) == nil {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        #expect(failures.withLock { $0 } == 0)
        let status = try session.daemon.connect().request(["op": "status"], timeout: 5_000)
        #expect(status["ok"] == true)
        #expect(status["result"]?["freedesktop"]?.stringValue?.hasPrefix("serving") == true)
        #expect(try client.notify(Notification(summary: "still here")) > 0)
    }

    @Test(.enabled(if: available)) func aSecondToastdLeavesTheNameToTheFirstAndSaysSo() throws {
        let session = try Session()
        let second = try DaemonFixture(arguments: ["--freedesktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
        let state = Self.waitForBridge(second, "not serving")
        #expect(state.contains("another notification server owns it"), "\(state)")
        #expect(try second.toastctl("add", "the socket still works").status == 0)
        #expect(try session.notifySend("-p", "to the first").status == 0)
    }

    /// The bridge is one of toastd's services: SIGTERM stops it before the
    /// socket and the hub, so the name is given back (another server can take
    /// it at once) and toastd leaves with 0 and nothing on stderr.
    @Test(.enabled(if: available)) func sigtermGivesTheNameBackAndExitsCleanly() throws {
        let session = try Session()
        #expect(try session.notifySend("-p", "before the stop").status == 0)
        let status = ["--address=\(session.address)", "status", "org.freedesktop.Notifications"]
        #expect(try session.run("/usr/bin/busctl", status).status == 0, "toastd owns the name")
        session.daemon.process.terminate()
        session.daemon.process.waitUntilExit()
        #expect(session.daemon.process.terminationStatus == 0)
        let stderr = String(decoding: session.daemon.log.fileHandleForReading.availableData, as: UTF8.self)
        #expect(stderr.isEmpty, "\(stderr)")
        let owner = try session.run("/usr/bin/busctl", status)
        #expect(owner.status != 0, "nobody owns the name after the stop: \(owner.stdout)")
        let next = try DaemonFixture(arguments: ["--freedesktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
        #expect(Self.waitForBridge(next, "serving").hasPrefix("serving"), "a new server takes the name")
    }

    /// The session bus restarts under a running toastd (a new login with
    /// lingering, dbus-broker restarted): the bridge says it lost the bus,
    /// connects again with backoff, owns the name again and serves, and the
    /// toasts it had are still there.
    @Test(.enabled(if: available)) func aRestartedBusIsJoinedAgain() throws {
        var bus = try Bus()
        let daemon = try DaemonFixture(arguments: ["--freedesktop", "--log-level", "warning"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.path])
        #expect(Self.waitForBridge(daemon, "serving").hasPrefix("serving"))
        func notifySend(_ text: String) throws -> DaemonFixture.Outcome {
            try DaemonFixture.run("/usr/bin/notify-send", ["-p", "-t", "0", text], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.path])
        }
        let before = try notifySend("before the restart")
        #expect(before.status == 0)

        kill(bus.pid, SIGTERM)
        let lost = Self.waitForBridge(daemon, "the freedesktop bridge failed")
        #expect(lost.contains("lost the session bus") || lost.contains("cannot reach the session bus"), "\(lost)")
        bus = try bus.restarted()
        #expect(Self.waitForBridge(daemon, "serving").hasPrefix("serving"))

        let after = try notifySend("after the restart")
        #expect(after.status == 0, "\(after.stderr)")
        let list = try daemon.connect().request(["op": "list"], timeout: 5_000)
        guard case .array(let toasts)? = list["result"]?["toasts"] else {
            Issue.record("no toasts in \(list)")
            return
        }
        let texts = toasts.compactMap { $0["message"]?.stringValue }
        #expect(texts.contains("before the restart") && texts.contains("after the restart"), "\(texts)")
        #expect(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != before.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
