// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

extension ToastHub {
    // MARK: - Shutdown

    /// Tells every subscriber `shutdown`, flushes, and closes every
    /// connection; completes once the journaled steps are in the database.
    func shutdown(reason: String) -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        isShuttingDown = true
        timer?.cancel()
        runner.stop()
        // What was acknowledged is committed; let the last steps' writes out first.
        endStep()
        return persistence.idle.flatMap { [self] in closeAll(reason: reason) }.recover { _ in }.flatMap { [persistence] in
            persistence.shutdown()
        }
    }

    func closeAll(reason: String) -> EventLoopFuture<Void> {
        let notice = ByteBuffer(bytes: WireEncoder.line(
            WireEncoder.shutdownNotice(seq: service.scheduler.lastSequence, time: clock.now(), reason: reason)
        ))
        var closed: [EventLoopFuture<Void>] = []
        for connection in connections.values {
            switch connection.output.shutdown() {
            case .notifyThenClose: connection.write(notice, flush: false)
            case .close: break
            }
            let channel = connection.channel
            // A reader that takes nothing would hold the empty write, and the
            // exit, forever: it is closed with its bytes unsent after the grace.
            let cutOff = loop.scheduleTask(in: Self.shutdownGrace) { channel.close(promise: nil) }
            closed.append(
                channel.writeAndFlush(ByteBuffer()).flatMap {
                    cutOff.cancel()
                    return channel.close()
                }.recover { _ in }
            )
        }
        return EventLoopFuture.andAllComplete(closed, on: loop)
    }
}
