// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

extension ToastHub {
    /// Confined to the hub's event loop, like the hub itself.
    final class Connection: @unchecked Sendable {
        let id: Int
        let channel: any Channel
        /// Its `ConnectionHandler`'s context. A step's writes start there,
        /// next to the socket (no outbound handler sits between), where
        /// `channel.write` went through the `Channel` existential, a generic
        /// wrapper and the pipeline's tail: about 0.7k instructions a
        /// subscriber and event at 128 subscribers (docs/BENCHMARKS.md,
        /// section 3). Every write to the connection goes through it (or
        /// through `sendEvent`), so that it knows when swift-nio may hold
        /// bytes; only empty writes before a close go through `channel`.
        private let context: ChannelHandlerContext
        // The three below are read or changed for every event the
        // connection is sent, and are @exclusivity(unchecked) for the
        // hub's reason (a dynamic check each access): they are confined to
        // the loop, `output`'s methods call back only to ask the channel
        // what it holds, and the other two are plain values.
        /// What to do with its output (`SubscriberStateMachine`).
        @exclusivity(unchecked)
        var output: SubscriberStateMachine
        /// A subscriber's socket, once found: its events are sent there
        /// while swift-nio holds nothing for it (`SubscriberSocket`).
        @exclusivity(unchecked)
        private(set) var socket: SubscriberSocket?
        /// Whether swift-nio may hold bytes of this connection the kernel
        /// has not taken: set by every write through the channel, cleared
        /// once the channel says it holds none.
        @exclusivity(unchecked)
        private var channelMayHoldBytes = true
        /// Whether the channel reads its socket (its `autoRead`), as last set.
        private var reading = true
        /// Its own events (`EventRouter.Delivery.isOwn`) not written while
        /// it was behind as a subscriber: given with the catch-up, or after
        /// `lagged` when the backlog no longer holds them. At most a few per
        /// toast it added, and only while it is behind.
        var missedOwn: [(seq: UInt64, line: ByteBuffer)] = []
        /// Its requests held back while its unread replies are at their bound.
        var hold = RequestHold()
        /// Whether it is a spare connection, and whether it has said anything.
        var admission = Admission(kind: .regular)
        /// Closes it if it sends no line in time.
        var firstLineTimer: Scheduled<Void>?

        init(id: Int, context: ChannelHandlerContext, limits: SubscriberStateMachine.Limits) {
            self.id = id
            self.channel = context.channel
            self.context = context
            self.output = SubscriberStateMachine(limits: limits)
        }

        /// Writes `bytes` into the channel, and flushes it with them if `flush`.
        func write(_ bytes: ByteBuffer, flush: Bool, promise: EventLoopPromise<Void>? = nil) {
            channelMayHoldBytes = true
            if flush {
                context.writeAndFlush(NIOAny(bytes), promise: promise)
            } else {
                context.write(NIOAny(bytes), promise: promise)
            }
        }

        func flush() { context.flush() }

        /// What swift-nio holds for this connection that the kernel has not
        /// taken (`buffered` asks the channel): asked only after a write
        /// through the channel, and known to be none from an answer of none
        /// until the next write. Every request line needs it
        /// (`RequestHold`), and asking (`getOption`, its option's type
        /// matched by dynamic casts) was about 1,000 instructions an add of a
        /// pipelined burst, where a burst writes nothing until its step ends.
        func heldBytes(_ buffered: () -> Int) -> Int {
            guard channelMayHoldBytes else { return 0 }
            let bytes = buffered()
            if bytes == 0 { channelMayHoldBytes = false }
            return bytes
        }

        /// Notes whether the channel should read its socket; true when that
        /// changes what was last set (`ToastHub.setReading`).
        func readingChanged(to on: Bool) -> Bool {
            defer { reading = on }
            return reading != on
        }

        /// Asks the channel to read its socket now.
        func readNow() { context.read() }

        /// Writes a subscriber's event and flushes it: straight to the
        /// socket when swift-nio holds nothing for it (`buffered` asks the
        /// channel, and only after a write through it), the rest of it, or
        /// all of it otherwise, through the channel.
        func sendEvent(_ bytes: ByteBuffer, buffered: () -> Int) {
            guard let socket, channel.isActive, heldBytes(buffered) == 0 else {
                return write(bytes, flush: true)
            }
            guard let taken = socket.send(bytes) else { return write(bytes, flush: true) }
            guard taken < bytes.readableBytes else { return }
            write(bytes.getSlice(at: bytes.readerIndex + taken, length: bytes.readableBytes - taken)!, flush: true)
        }

        /// Looks for the socket of a connection that subscribed.
        func findSocket() {
            guard socket == nil else { return }
            SubscriberSocket.of(channel).whenSuccess { [self] in socket = $0 }
        }
    }
}
