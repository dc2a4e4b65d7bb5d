// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastCore
import ToastKit

/// ToastKit against the real toastd on a real socket.
@Suite("ToastKit, end to end")
struct ToastKitEndToEndTests {
    /// Waits until toastd counts `count` subscribers (an event stream subscribes on a thread of its own).
    static func waitForSubscribers(_ count: Int, on session: ToastSession) async throws {
        for _ in 0..<500 {
            if try await session.perform(.status)["subscribers"]?.intValue == Int64(count) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("toastd never counted \(count) subscribers")
    }

    @Test func showUpdateAndHearTheOutcome() async throws {
        let daemon = try DaemonFixture()
        let toasts = try await ToastSession.connect(socket: daemon.socket, source: "kit-test")
        let toast = try await toasts.show("Saving", role: .info, duration: .indefinite, reuseID: "save", actions: [ToastAction(id: "undo", label: "Undo")])
        #expect(toast.record.state == .shown)
        #expect(toast.record.toast.source == "kit-test")
        let updated = try await toast.update(progress: 0.5)
        #expect(updated.toast.progress == .fraction(0.5))
        let again = try await toasts.show(
            "Saving", role: .info, duration: .indefinite, reuseID: "save", actions: [ToastAction(id: "undo", label: "Undo")]
        )
        #expect(again.deduped && again.id == toast.id)
        // A person invokes the action elsewhere: this session hears it.
        try #require(try daemon.toastctl("invoke", "\(toast.id)", "--action", "undo").status == 0)
        #expect(await toast.outcome == .action("undo"))

        let short = try await toasts.show("Brief", duration: .seconds(0.2))
        #expect(await short.outcome == .dismissed(.expired))
    }

    /// Role defaults fill what the caller left out, and only that: an
    /// alignment given explicitly stays, even when it is the default one.
    @Test func roleDefaultsFillOnlyWhatTheCallerLeftOut() async throws {
        let (daemon, _) = try ConfigIntegrationTests.daemon(config: """
            [roles.failure]
            alignment = "bottom"
            dismissible = false
            """)
        let toasts = try await ToastSession.connect(socket: daemon.socket)
        let defaulted = try await toasts.show("Build failed", role: .failure, duration: .indefinite)
        #expect(defaulted.record.toast.alignment == .bottom && !defaulted.record.toast.dismissible)
        let chosen = try await toasts.show("Tests failed", role: .failure, duration: .indefinite, alignment: .top, dismissible: true)
        #expect(chosen.record.toast.alignment == .top && chosen.record.toast.dismissible)
    }

    @Test func errorsCarryTheProtocolsCode() async throws {
        let daemon = try DaemonFixture()
        let toasts = try await ToastSession.connect(socket: daemon.socket)
        await #expect(throws: ToastKitError.self) { try await toasts.perform(.command(.remove(.id(99)))) }
        do {
            try await toasts.perform(.command(.remove(.id(99))))
        } catch {
            #expect(error.code == .notFound)
        }
        do {
            _ = try await ToastSession.connect(socket: daemon.directory.appending(path: "missing.sock").path)
            Issue.record("connected to nothing")
        } catch {
            #expect(error.code == nil)
            #expect(error.message.contains("cannot connect"))
        }
    }

    /// A bound source's toasts end with the scope, however it ends.
    @Test func withSourceEndsItsToastsWithTheScope() async throws {
        let daemon = try DaemonFixture()
        let watcher = try await ToastSession.connect(socket: daemon.socket)
        var events = watcher.events().makeAsyncIterator()
        try await Self.waitForSubscribers(1, on: watcher)
        struct Failed: Error {}
        do {
            try await ToastSession.withSource("scoped", bind: true, socket: daemon.socket) { toasts in
                var spinner = Toast(message: "Working…", progress: .indeterminate, dismissible: false)
                spinner.invalidation = [.presentationDismissed]
                _ = try await toasts.show(spinner)
                throw Failed()
            }
        } catch is Failed {}
        var names: [String] = []
        while names.last != "dismissed", let event = try await events.next() {
            names.append(event.name)
            if case .dismissed(_, let reason) = event.kind { #expect(reason == .invalidated) }
        }
        #expect(names == ["presented", "dismissed"])
    }

    /// The event stream survives a restart of toastd and resumes.
    @Test func theEventStreamReconnects() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastkit-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/state"
        let socket = directory + "/toastd.sock"
        var daemon: DaemonFixture? = try DaemonFixture(arguments: ["--state-dir", state, "--socket", socket])
        let session = try await ToastSession.connect(socket: socket)
        var events = session.events().makeAsyncIterator()
        try await Self.waitForSubscribers(1, on: session)
        _ = try await session.show("before", duration: .indefinite)
        #expect(try await events.next()?.name == "presented")
        _ = daemon
        daemon = nil  // SIGTERM: the stream loses its connection
        let restarted = try DaemonFixture(arguments: ["--state-dir", state, "--socket", socket])
        _ = restarted
        let blocking = try BlockingToasts(socket: socket)
        let id = try blocking.show(Toast(message: "after", duration: .indefinite))
        var seen: ToastEvent?
        while seen == nil, let event = try await events.next() {
            if event.record?.id == id { seen = event }
        }
        #expect(seen?.name == "presented")
    }

    @Test func theBlockingFacadeWaitsForAnOutcome() throws {
        let daemon = try DaemonFixture()
        let toasts = try BlockingToasts(socket: daemon.socket)
        let id = try toasts.show(Toast(message: "Deploy?", duration: .seconds(0.3), actions: [ToastAction(id: "yes", label: "Yes")]))
        #expect(try toasts.waitForOutcome(of: id, timeout: .seconds(5)) == .dismissed(.expired))
        let waiting = try toasts.show(Toast(message: "never answered", duration: .indefinite))
        #expect(try toasts.waitForOutcome(of: waiting, timeout: .milliseconds(100)) == nil)
        // A resident toast stays after an action: the action is its outcome at once.
        var player = Toast(message: "Now playing", duration: .indefinite, actions: [ToastAction(id: "next", label: "Next")])
        player.resident = true
        let resident = try toasts.show(player)
        #expect(try daemon.toastctl("invoke", "\(resident)", "--action", "next").status == 0)
        #expect(try toasts.waitForOutcome(of: resident, timeout: .seconds(5)) == .action("next"))
    }
}
