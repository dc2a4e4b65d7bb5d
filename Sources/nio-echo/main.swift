// SPDX-License-Identifier: Apache-2.0
// The swift-nio floor of the start-up benchmark: the least a swift-nio
// server does to answer its first client, built and linked as toastd is
// (scripts/bench.sh), so that a socket-activated toastd can be set beside
// the same start of swift-nio alone. It writes back whatever it reads.
//
// usage: nio-echo SOCKET   (started by socket activation, LISTEN_FDS=1, it
//                           serves descriptor 3 instead)
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

final class Echo: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    let usage = "usage: nio-echo SOCKET\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
    }
let activated = getenv("LISTEN_FDS").map { String(cString: $0) } == "1"
    && getenv("LISTEN_PID").map { String(cString: $0) } == String(getpid())
let channel =
    activated
    ? try bootstrap.withBoundSocket(3).wait()
    : try bootstrap.bind(unixDomainSocketPath: arguments[1], cleanupExistingSocketFile: true).wait()
try channel.closeFuture.wait()
