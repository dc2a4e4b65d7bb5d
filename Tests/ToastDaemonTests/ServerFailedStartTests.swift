// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing
import ToastSystem

@testable import ToastDaemon

/// `ToastServer.run` when a service fails to start: the services that had
/// started stop before `run` returns, so that the event loop outlives their
/// completions (once, it did not: `toastd` started beside a running one
/// printed swift-nio's "Cannot schedule tasks on an EventLoop that has
/// already shut down", one start in two).
@Suite("ToastServer: a failed start stops what had started before it returns")
struct ServerFailedStartTests {
    struct Refused: Error {}

    /// A companion whose stop completes only when the test says so.
    final class GatedService: DaemonService, @unchecked Sendable {
        let name = "gated"
        let stopping = DispatchSemaphore(value: 0)
        let gate = Mutex<EventLoopPromise<Void>?>(nil)

        func start() -> EventLoopFuture<Void> {
            MultiThreadedEventLoopGroup.currentEventLoop!.makeSucceededVoidFuture()
        }

        func stop(reason: String) -> EventLoopFuture<Void> {
            let promise = MultiThreadedEventLoopGroup.currentEventLoop!.makePromise(of: Void.self)
            gate.withLock { $0 = promise }
            stopping.signal()
            return promise.futureResult
        }
    }

    final class FailingService: DaemonService, @unchecked Sendable {
        let name = "failing"
        func start() -> EventLoopFuture<Void> { MultiThreadedEventLoopGroup.currentEventLoop!.makeFailedFuture(Refused()) }
        func stop(reason: String) -> EventLoopFuture<Void> { MultiThreadedEventLoopGroup.currentEventLoop!.makeSucceededVoidFuture() }
    }

    @Test("run waits for the earlier services' stops, then throws the failure")
    func waitsForStops() throws {
        let temporary = try TemporaryDirectory(prefix: "toastd-failed-start")
        defer { temporary.remove() }
        let directory = temporary.path
        let gated = GatedService()
        var options = DaemonOptions(socketPath: directory + "/toastd.sock")
        options.handlesSignals = false
        options.companions = [{ _, _ in gated }, { _, _ in FailingService() }]
        var logger = Logger(label: "toastd")
        logger.logLevel = .critical
        let server = ToastServer(options: options, logger: logger)

        let outcome = Mutex<(any Error)?>(nil)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do { try server.run() } catch { outcome.withLock { $0 = error } }
            returned.signal()
        }
        gated.stopping.wait()
        let returnedEarly = returned.wait(timeout: .now() + 0.3) == .success
        #expect(!returnedEarly, "run returned while a service that had started was still stopping")
        gated.gate.withLock { $0?.succeed() }
        if !returnedEarly { returned.wait() }
        #expect(outcome.withLock { $0 } is Refused)
        #expect(access(directory + "/toastd.sock", F_OK) != 0, "the socket, started before the failure, stopped and removed its file")
    }
}
