// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing
import ToastCore

@testable import ToastDaemon

/// Each toast added is a line of the log (the journal's `TOASTD_ROLE=`
/// entries), written once the step's replies are: a client does not wait
/// for its toast's log line.
@Suite("The toasts' log lines")
struct ToastLogTests {
    /// Records each message with the bytes the connection had written when it came.
    final class Recorder: Sendable {
        let entries = Mutex<[(level: Logger.Level, message: String, written: Int)]>([])
        let written = Mutex(0)

        var logger: Logger {
            var logger = Logger(label: "toastd") { _ in Handler(recorder: self) }
            logger.logLevel = .debug
            return logger
        }

        struct Handler: LogHandler {
            let recorder: Recorder
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .debug
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                let written = recorder.written.withLock { $0 }
                recorder.entries.withLock { $0.append((event.level, "\(event.message)", written)) }
            }
        }
    }

    /// Counts the bytes written to the connection, nearest the socket.
    final class WriteCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = ByteBuffer
        let recorder: Recorder
        init(_ recorder: Recorder) { self.recorder = recorder }
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let bytes = Self.unwrapOutboundIn(data).readableBytes
            recorder.written.withLock { $0 += bytes }
            context.write(data, promise: promise)
        }
    }

    @Test func aToastIsLoggedAfterItsReplyIsWritten() throws {
        let recorder = Recorder()
        let harness = try HubChannelTests.Harness(logger: recorder.logger)
        let client = try harness.connect([WriteCounter(recorder)])
        try harness.send(
            [
                .command(.add(Toast(message: "one", duration: .indefinite, reuseID: "r"))),
                .command(.add(Toast(message: "two", duration: .indefinite, reuseID: "r"))),
            ], on: client)
        let replies = try HubChannelTests.Harness.lines(client)
        #expect(replies.count == 2)
        let lines = recorder.entries.withLock { $0 }.filter { $0.message.hasPrefix("toast ") }
        #expect(lines.map(\.message) == ["toast added", "toast updated"])
        #expect(lines.map(\.level) == [.info, .debug], "an update in place is a debug line")
        let written = recorder.written.withLock { $0 }
        #expect(written > 0)
        #expect(lines.allSatisfy { $0.written == written }, "each line came once both replies were written: \(lines.map(\.written)) of \(written)")
    }
}
