// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastKit
import ToastCore

/// toast-notify against a real mako under a headless sway (issue #40): text
/// goes escaped to a notifier that reads markup, and a mako that restarts
/// under it (a new owner, numbering from 1) gets the live toasts again.
@Suite("toast-notify with a real mako", .serialized)
struct MakoTests {
    static let available = HeadlessDesktop.available
        && ["/usr/bin/mako", "/usr/bin/makoctl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// The notifications mako holds (`makoctl list`): each as JSON.
    static func notifications(_ desktop: HeadlessDesktop) throws -> [JSONValue] {
        let listed = try desktop.run("/usr/bin/makoctl", ["list"])
        guard listed.status == 0, let value = try? JSONValue.parse(listed.stdout),
            case .array(let groups)? = value["data"], case .array(let notifications)? = groups.first
        else { return [] }
        return notifications
    }

    static func wait(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<300 {
            if try condition() { return true }
            usleep(20_000)
        }
        return false
    }

    @Test(.enabled(if: available)) func markupIsEscapedAndARestartedMakoIsFollowed() throws {
        let desktop = try HeadlessDesktop()
        let binaries = DaemonFixture.binaryDirectory
        var mako = try desktop.spawn("/usr/bin/mako", [])
        #expect(try Self.wait { try desktop.run("/usr/bin/makoctl", ["list"]).status == 0 }, "mako serves")
        let toastd = try desktop.spawn(binaries.appending(path: "toastd").path, ["--socket", desktop.runtime + "/toastd.sock", "--ephemeral"])
        _ = toastd
        SocketFileProbe.waitUntilAccepting(desktop.runtime + "/toastd.sock")
        let log = desktop.runtime + "/notify.log"
        _ = try desktop.spawn(binaries.appending(path: "toast-notify").path, [], stderr: log)
        usleep(500_000)
        let toastctl = binaries.appending(path: "toastctl").path
        let id = try desktop.run(toastctl, ["add", "<b>not bold</b> & <span size='xx-large'>big</span>", "--title", "CI", "--duration", "indefinite"]).stdout
        #expect(try Self.wait { try Self.notifications(desktop).count == 1 })
        let body = try Self.notifications(desktop).first?["body"]?["data"]?.stringValue
        #expect(body == "&lt;b&gt;not bold&lt;/b&gt; &amp; &lt;span size=&apos;xx-large&apos;&gt;big&lt;/span&gt;", "\(body ?? "none")")
        #expect(try Self.notifications(desktop).first?["app-name"]?["data"]?.stringValue?.hasPrefix("toastctl") == true)

        // mako restarts: the toast is shown again on the new one.
        desktop.stop(mako, signal: SIGKILL)
        mako = try desktop.spawn("/usr/bin/mako", [])
        #expect(try Self.wait { try Self.notifications(desktop).count == 1 }, "shown again on the new mako")
        // Dismissed in mako: dismissed in toastd.
        #expect(try desktop.run("/usr/bin/makoctl", ["dismiss"]).status == 0)
        #expect(try Self.wait {
            let history = try desktop.run(toastctl, ["history", "--json"]).stdout
            return history.contains("\"reason\":\"user\"") && history.contains("\"id\":\(id)")
        })
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("took the notifications name"), "\(text)")
    }
}
