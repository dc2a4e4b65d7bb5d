// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
import ToastCore

@testable import ToastDaemon

/// Events sent past swift-nio (`SubscriberSocket`), on real sockets: the
/// hub on a real event loop, its connection on one end of a socket pair,
/// the test reading the other end.
@Suite("Subscribers' events sent past swift-nio")
struct SubscriberSocketTests {
    /// The hub on a real loop, and a subscriber whose socket (the daemon's
    /// end) takes at most about `sendBufferBytes` before the test reads.
    final class Harness: @unchecked Sendable {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let hub: ToastHub
        let channel: any Channel
        /// The test's end of the pair, blocking.
        let client: CInt
        /// Writes that went through swift-nio's pipeline, nearest the socket.
        let counter = WriteCounter()

        init(sendBufferBytes: CInt? = nil) throws {
            let loop = group.next()
            let hub = HubChannelTests.Harness.hub(on: loop)
            self.hub = hub
            try loop.submit { HubChannelTests.Harness.start(hub) }.wait()
            var ends: [CInt] = [-1, -1]
            try #require(socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
            client = ends[1]
            if var size = sendBufferBytes {
                setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<CInt>.size))
            }
            let counter = self.counter
            channel = try ClientBootstrap(group: loop).channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([counter] + HubChannelTests.Harness.handlers(for: hub))
                }
            }.withConnectedSocket(ends[0]).wait()
        }

        /// Called by each test when it is done (not in `deinit`, which may
        /// run on the loop, where a test's last closure let go of it).
        func shutDown() {
            close(client)
            try? channel.close().wait()
            try? group.syncShutdownGracefully()
        }

        /// Subscribes (live events only) and reads the reply.
        func subscribe() throws {
            write(#"{"op":"subscribe","snapshot":false}"# + "\n")
            var pending: [UInt8] = []
            let reply = try #require(try readLines(1, into: &pending).first)
            #expect(reply["ok"] == true)
        }

        func write(_ line: String) {
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) }
        }

        /// Adds a toast in process (a step of its own), on the loop.
        func add(_ index: Int, size: Int = 100) {
            let toast = Toast(message: "toast \(index) " + String(repeating: "x", count: size), duration: .indefinite, scene: "s\(index)")
            hub.perform(RequestEnvelope(request: .command(.add(toast))), source: "test") { _ in }
        }

        /// Reads from the client's end until `count` whole lines are in,
        /// after what `pending` already holds; what follows them stays there.
        func readLines(_ count: Int, into pending: inout [UInt8]) throws -> [JSONValue] {
            var lines: [JSONValue] = []
            while true {
                while let newline = pending.firstIndex(of: 10), lines.count < count {
                    lines.append(try JSONValue.parse(String(decoding: pending[..<newline], as: UTF8.self)))
                    pending.removeSubrange(...newline)
                }
                if lines.count == count { return lines }
                var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                try #require(poll(&poller, 1, 10_000) == 1, "no more bytes after \(lines.count) lines")
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                let got = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                try #require(got > 0)
                pending += buffer[..<got]
            }
        }

        /// What swift-nio holds for the subscriber, unwritten.
        func channelBufferedBytes() throws -> Int {
            try channel.eventLoop.submit { [channel] in
                try channel.syncOptions!.getOption(ChannelOptions.bufferedWritableBytes)
            }.wait()
        }
    }

    /// Counts the writes of presented events that pass through it.
    final class WriteCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = ByteBuffer
        private let lock = NSLock()
        private var count = 0
        var events: Int { lock.withLock { count } }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let bytes = unwrapOutboundIn(data)
            if bytes.readableBytesView.starts(with: #"{"event":"presented""#.utf8) { lock.withLock { count += 1 } }
            context.write(data, promise: promise)
        }
    }

    static func sequenceNumbers(_ lines: [JSONValue]) -> [Int64] {
        lines.compactMap { $0["seq"]?.intValue }
    }

    /// A subscriber whose reader keeps up gets its events without
    /// swift-nio's pipeline seeing them.
    @Test func aLiveSubscribersEventsGoStraightToItsSocket() throws {
        let harness = try Harness()
        defer { harness.shutDown() }
        try harness.subscribe()
        var pending: [UInt8] = []
        for index in 0..<5 {
            try harness.channel.eventLoop.submit { harness.add(index) }.wait()
            let event = try #require(try harness.readLines(1, into: &pending).first)
            #expect(event["event"] == "presented")
            #expect(event["seq"]?.intValue == Int64(index + 1))
        }
        #expect(harness.counter.events == 0, "events went through swift-nio's pipeline")
    }

    /// Once the socket's buffer is full, an event's rest and the events
    /// after it go through swift-nio, and none is sent past it while it
    /// holds bytes, even when the socket has room again before swift-nio
    /// has been told so: every line arrives whole, in order.
    @Test func eventsWaitBehindWhatSwiftNIOHolds() throws {
        let harness = try Harness(sendBufferBytes: 4_096)
        defer { harness.shutDown() }
        try harness.subscribe()
        let loop = harness.channel.eventLoop
        // About 2 KB an event: the socket takes a few, then swift-nio holds the rest.
        var added = 0
        while try harness.channelBufferedBytes() == 0 {
            try #require(added < 50, "the socket never filled")
            try loop.submit { [added] in harness.add(added, size: 2_000) }.wait()
            added += 1
        }
        #expect(harness.counter.events > 0)
        // Room in the socket, and an event, in one turn of the loop: swift-nio
        // has not yet heard that the socket is writable again, and still
        // holds its bytes.
        let client = harness.client
        let taken = try loop.submit { [added] () -> [UInt8] in
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let got = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            harness.add(added, size: 2_000)
            return Array(buffer[..<max(0, got)])
        }.wait()
        #expect(!taken.isEmpty)
        added += 1
        var pending = taken
        let events = try harness.readLines(added, into: &pending)
        #expect(Self.sequenceNumbers(events) == Array(1...Int64(added)))
        #expect(events.allSatisfy { $0["event"] == "presented" })
    }

    @Test func theDescriptorIsReadFromSwiftNIOsDescription() {
        #expect(SubscriberSocket.describedDescriptor(in: "SocketChannel { BaseSocket { fd=12 }, active = true }") == 12)
        #expect(SubscriberSocket.describedDescriptor(in: "SocketChannel { BaseSocket { fd=x }, active = true }") == nil)
        #expect(SubscriberSocket.describedDescriptor(in: "EmbeddedChannel") == nil)
        #expect(SubscriberSocket.describedDescriptor(in: "fd=99999999999999") == nil)
    }

    /// The descriptor is used only when it is the channel's own socket.
    @Test func aDescriptorIsTrustedOnlyWithTheChannelsCookie() throws {
        let harness = try Harness()
        defer { harness.shutDown() }
        let found = try SubscriberSocket.of(harness.channel).wait()
        let socket = try #require(found)
        #expect(SubscriberSocket.cookie(of: socket.descriptor) != SubscriberSocket.cookie(of: harness.client))
        #expect(SubscriberSocket.cookie(of: harness.client) != nil)
        var pipe: [CInt] = [-1, -1]
        try #require(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]); close(pipe[1]) }
        #expect(SubscriberSocket.cookie(of: pipe[0]) == nil)
        // What the found socket sends reaches the test's end.
        #expect(socket.send(ByteBuffer(string: "{\"x\":1}\n")) == 8)
        var pending: [UInt8] = []
        #expect(try harness.readLines(1, into: &pending).first?["x"] == 1)
        // A channel that is not a socket has none.
        #expect(try SubscriberSocket.of(EmbeddedChannel()).wait() == nil)
    }
}
