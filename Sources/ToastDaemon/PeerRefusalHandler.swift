// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

/// The whole pipeline of a refused connection: once the channel is active it
/// writes one error line, then closes. (Writing from the child channel
/// initializer is too early: the channel is not active yet.)
final class PeerRefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let error: ToastError

    init(_ error: ToastError) {
        self.error = error
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { Self.refuse(context, with: error) }
    }

    func channelActive(context: ChannelHandlerContext) {
        Self.refuse(context, with: error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever the peer sent is ignored.
    }

    /// Writes `error` as the connection's only line, then closes it.
    static func refuse(_ context: ChannelHandlerContext, with error: ToastError) {
        let line = WireEncoder.failureLine(ref: nil, error: error)
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: line))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
