// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import Testing
import ToastDaemon
import ToastSystem

@testable import ToastKit

/// ToastKit's async session against toastd's own server, both in this
/// process: no binaries, the real socket and codec between them.
@Suite("ToastSession against an in-process toastd", .serialized)
struct ToastSessionInProcessTests {
    /// A toastd serving a socket in a fresh directory on a thread of its own.
    final class InProcessDaemon: @unchecked Sendable {
        let socket: String
        let server: ToastServer
        private let directory: TemporaryDirectory
        private let finished = DispatchSemaphore(value: 0)

        init() throws {
            directory = try TemporaryDirectory(prefix: "toastkit")
            socket = directory.path + "/toastd.sock"
            var logger = Logger(label: "toastd")
            logger.logLevel = .critical
            var options = DaemonOptions(socketPath: socket)
            // Signal handlers would leave SIGTERM ignored in this test
            // process, and in every child the other tests start.
            options.handlesSignals = false
            // Ready is when the socket accepts: waited for, not polled with a
            // deadline that a loaded machine (CI runs suites side by side) misses.
            let ready = DispatchSemaphore(value: 0)
            options.serviceManager.ready = { _ in ready.signal() }
            server = ToastServer(options: options, logger: logger)
            let server = self.server
            let finished = self.finished
            Thread.detachNewThread {
                try? server.run()
                ready.signal()  // a start that failed is ready too: the connect says why
                finished.signal()
            }
            ready.wait()
        }

        func stop() {
            server.stop(reason: "test")
            finished.wait()
            directory.remove()
        }
    }

    @Test("show, update and remove: typed records back, and the outcome of the end")
    func showUpdateRemove() async throws {
        let daemon = try InProcessDaemon()
        defer { daemon.stop() }
        let session = try await ToastSession.connect(socket: daemon.socket, source: "kit-test")
        let handle = try await session.show("Uploading", role: .info, progress: .fraction(0.1), actions: [ToastAction(id: "stop", label: "Stop")])
        #expect(handle.record.state == .shown)
        #expect(handle.record.toast.source == "kit-test")
        #expect(!handle.deduped)
        let updated = try await handle.update(progress: 0.4)
        #expect(updated.toast.progress == .fraction(0.4))
        #expect(updated.id == handle.id)
        try await handle.remove()
        #expect(await handle.outcome == .dismissed(.removed))
    }

    @Test("a reuse identifier dedupes into the same toast, and the handle says so")
    func dedupe() async throws {
        let daemon = try InProcessDaemon()
        defer { daemon.stop() }
        let session = try await ToastSession.connect(socket: daemon.socket)
        let first = try await session.show("Build 1 running", duration: .indefinite, reuseID: "build")
        let second = try await session.show("Build 2 running", duration: .indefinite, reuseID: "build")
        #expect(second.deduped)
        #expect(second.id == first.id)
        #expect(second.record.toast.message == "Build 2 running")
    }

    @Test("toastd's refusal is a typed error with its code and field")
    func refusal() async throws {
        let daemon = try InProcessDaemon()
        defer { daemon.stop() }
        let session = try await ToastSession.connect(socket: daemon.socket)
        do {
            _ = try await session.perform(.command(.remove(.id(999))))
            Issue.record("removing an unknown toast succeeded")
        } catch {
            #expect(error.code == .notFound)
        }
        await #expect(throws: ToastKitError.self) {
            _ = try await session.show(Toast(message: "   "))
        }
    }

    @Test("the event stream delivers what another session does, typed")
    func events() async throws {
        let daemon = try InProcessDaemon()
        defer { daemon.stop() }
        let watcher = try await ToastSession.connect(socket: daemon.socket)
        let stream = watcher.events(scene: "kit")
        let adder = try await ToastSession.connect(socket: daemon.socket)
        var iterator = stream.makeAsyncIterator()
        // The subscription is live once its first event arrives; add until one does.
        let added = Task {
            for index in 0..<50 {
                _ = try? await adder.show("watched \(index)", scene: "kit", reuseID: "w")
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { added.cancel() }
        let event = try await iterator.next()
        #expect(event?.record?.toast.scene == "kit")
        #expect(event?.record?.toast.message.hasPrefix("watched") == true)
    }

    @Test("the daemon going away ends a waiting outcome instead of hanging it")
    func daemonGone() async throws {
        let daemon = try InProcessDaemon()
        let session = try await ToastSession.connect(socket: daemon.socket)
        let handle = try await session.show("forever", duration: .indefinite)
        daemon.stop()
        #expect(await handle.outcome == .cancelled(.sourceEnded))
    }
}
