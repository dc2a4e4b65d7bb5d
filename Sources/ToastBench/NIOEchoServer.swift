// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOPosix
import ToastDaemon

/// The swift-nio baseline of the ingest benchmark: toastd's own socket
/// setup and line framing on one event loop, with no work at all: each line
/// is written straight back, flushed once per read, as toastd flushes.
public enum NIOEchoServer {
    final class Echo: ChannelInboundHandler, Sendable {
        typealias InboundIn = FramedLine
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .line(var line) = unwrapInboundIn(data) else { return }
            line.writeInteger(UInt8(ascii: "\n"))
            context.write(wrapOutboundOut(line), promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.flush()
        }
    }

    /// Serves `socket` until the process is killed.
    public static func serve(socket: String) throws -> Never {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(maxLineBytes: 65_536)))
                    try channel.pipeline.syncOperations.addHandler(Echo())
                }
            }
            .bind(unixDomainSocketPath: socket, cleanupExistingSocketFile: true)
            .wait()
        try channel.closeFuture.wait()
        fatalError("the echo server stopped")
    }
}
