// SPDX-License-Identifier: Apache-2.0
import NIOCore
import ToastCore

/// One client connection: hands each framed line to the hub, and closes the
/// connection once a client that is not listening for events has said all
/// it had to say (`echo ... | socat` half-closes after its line).
final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = FramedLine

    private let hub: ToastHub
    private let source: String
    private var id: Int?

    init(hub: ToastHub, source: String) {
        self.hub = hub
        self.source = source
    }

    func channelActive(context: ChannelHandlerContext) {
        if let id = hub.register(context, source: source) {
            self.id = id
        } else {
            let error =
                hub.isShuttingDown
                ? ToastError(.shuttingDown, "toastd is shutting down")
                : ToastError(.tooManyConnections, "toastd serves its limit of \(hub.limits.maxConnections) connections")
            PeerRefusalHandler.refuse(context, with: error)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let id else { return }
        hub.receive(unwrapInboundIn(data), from: id)
    }

    /// The end of a read burst: the hub commits what it changed and writes.
    func channelReadComplete(context: ChannelHandlerContext) {
        hub.endStep()
    }

    /// A client that writes requests and does not read its replies is not
    /// read from while more than the write buffer's high mark waits for it
    /// (`ToastServer.writeBufferWaterMark`), and is read again once that has
    /// drained to the low mark (PROTOCOL.md, 1.3); requests already read
    /// wait meanwhile (`RequestHold`): toastd holds a bounded amount for
    /// each client, however fast it writes.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let id { hub.writabilityChanged(id, writable: context.channel.isWritable) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let id { hub.unregister(id) }
        id = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, let id, !hub.keepsOutputOpen(id) {
            hub.closeOnceAnswered(id)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
