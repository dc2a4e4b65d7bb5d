// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOEmbedded
import Testing

@testable import ToastDaemon

/// What the services did, in order (everything runs on one embedded loop).
final class ServiceLog: @unchecked Sendable {
    var lines: [String] = []
    var finished = false
}

/// A service that writes down when it starts and stops, and can fail or
/// take its time.
final class RecordingService: DaemonService, @unchecked Sendable {
    let name: String
    let log: ServiceLog
    let loop: EmbeddedEventLoop
    var failsToStart = false
    /// Stops only when this is completed.
    var stopGate: EventLoopPromise<Void>?

    init(_ name: String, loop: EmbeddedEventLoop, log: ServiceLog) {
        self.name = name
        self.loop = loop
        self.log = log
    }

    func start() -> EventLoopFuture<Void> {
        log.lines.append("start \(name)")
        if failsToStart { return loop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        return loop.makeSucceededVoidFuture()
    }

    func stop(reason: String) -> EventLoopFuture<Void> {
        log.lines.append("stop \(name) (\(reason))")
        return stopGate?.futureResult ?? loop.makeSucceededVoidFuture()
    }
}

@Suite("DaemonLifecycle: services start in order and stop in reverse")
struct DaemonLifecycleTests {
    @Test("start in order, stop in reverse, each after the later one has stopped")
    func order() throws {
        let loop = EmbeddedEventLoop()
        let log = ServiceLog()
        let services = ["hub", "socket", "bridge", "service manager"].map { RecordingService($0, loop: loop, log: log) }
        let gate = loop.makePromise(of: Void.self)
        services[2].stopGate = gate
        let lifecycle = DaemonLifecycle(loop: loop)
        try lifecycle.start(services).wait()
        lifecycle.finished.whenSuccess { log.finished = true }
        lifecycle.stop(reason: "SIGTERM")
        lifecycle.stop(reason: "SIGINT")
        #expect(log.lines == [
            "start hub", "start socket", "start bridge", "start service manager",
            "stop service manager (SIGTERM)", "stop bridge (SIGTERM)",
        ], "the socket waits until the bridge has stopped, and a second signal changes nothing")
        #expect(!log.finished)
        gate.succeed()
        #expect(log.lines.suffix(2) == ["stop socket (SIGTERM)", "stop hub (SIGTERM)"])
        #expect(log.finished)
    }

    @Test("a service that fails to start stops those before it, and nothing after it starts")
    func failedStart() {
        let loop = EmbeddedEventLoop()
        let log = ServiceLog()
        let services = ["hub", "socket", "bridge"].map { RecordingService($0, loop: loop, log: log) }
        services[1].failsToStart = true
        let lifecycle = DaemonLifecycle(loop: loop)
        #expect(throws: ChannelError.self) { try lifecycle.start(services).wait() }
        #expect(log.lines == ["start hub", "start socket", "stop hub (socket failed to start)"])
        #expect(throws: Never.self) { try lifecycle.finished.wait() }
    }

    @Test("a stop before the start means nothing starts")
    func stopFirst() throws {
        let loop = EmbeddedEventLoop()
        let log = ServiceLog()
        let lifecycle = DaemonLifecycle(loop: loop)
        lifecycle.stop(reason: "SIGTERM")
        try lifecycle.start([RecordingService("hub", loop: loop, log: log)]).wait()
        #expect(log.lines.isEmpty)
        try lifecycle.finished.wait()
    }

    @Test("a stop asked for while a service starts waits for the start to end")
    func stopDuringStart() throws {
        var machine = LifecycleStateMachine()
        let starts = machine.startRequested(count: 3)
        #expect(starts)
        machine.started(0)
        let early = machine.stopRequested(reason: "SIGTERM")
        #expect(early == .wait)
        machine.started(1)
        machine.started(2)
        let asked = machine.startingEnded()
        #expect(asked == "SIGTERM")
        var actions = [machine.stopRequested(reason: "SIGTERM")]
        for _ in 0..<3 { actions.append(machine.stoppedOne()) }
        #expect(actions == [.stopNext(2), .stopNext(1), .stopNext(0), .finished])
        #expect(machine.state == .stopped)
    }
}
