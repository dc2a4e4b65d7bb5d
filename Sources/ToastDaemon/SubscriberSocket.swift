// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// A subscriber's socket, so that its events can be sent past swift-nio.
///
/// Why: at 128 subscribers, swift-nio's write path (the pipeline's head,
/// the pending-writes queue, the channel's lifecycle checks, the flush)
/// took as much of the event loop's time per event as the kernel's `send`
/// itself (docs/BENCHMARKS.md, section 3, "Events sent past swift-nio").
/// `ToastHub.Connection` sends an event here only while swift-nio holds
/// nothing for the connection; what the kernel does not take, and every
/// other write, goes through swift-nio, so the connection's bytes keep
/// their order.
///
/// swift-nio does not hand out a channel's descriptor. Its description
/// names it (`fd=N`), and the number is used only once it is shown to be
/// the channel's own socket: both give the same `SO_COOKIE`, the number
/// Linux gives each socket for its lifetime. Where that cannot be shown (a
/// swift-nio that describes its channels otherwise, a kernel without
/// `SO_COOKIE`, a channel that is no socket), every write goes through
/// swift-nio, as before.
///
/// The number stays the channel's while the channel is active: swift-nio
/// marks it inactive as it closes the socket, on the event loop, before
/// anything else can run there (such as the accept that could reuse the
/// number), so a sender checks `isActive` first.
struct SubscriberSocket: Sendable, Equatable {
    let descriptor: CInt

    /// The channel's socket, looked for on its event loop; nil when it
    /// cannot be shown to be the channel's.
    static func of(_ channel: any Channel) -> EventLoopFuture<SubscriberSocket?> {
        guard let provider = channel as? any SocketOptionProvider, let descriptor = describedDescriptor(of: channel) else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let cookie: EventLoopFuture<UInt64> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(Self.cookieOption)
        )
        return cookie.map { cookie in
            Self.cookie(of: descriptor) == cookie ? SubscriberSocket(descriptor: descriptor) : nil
        }.recover { _ in nil }
    }

    /// The descriptor swift-nio's description of the channel names.
    static func describedDescriptor(of channel: any Channel) -> CInt? {
        describedDescriptor(in: String(describing: channel))
    }

    /// Read from the bytes: `firstRange(of:)` on the `String` cost 21k
    /// instructions a subscribe.
    static func describedDescriptor(in description: String) -> CInt? {
        let bytes = Array(description.utf8)
        let key = Array("fd=".utf8)
        guard let at = bytes.indices.first(where: { bytes[$0...].starts(with: key) }) else { return nil }
        let digits = bytes[(at + key.count)...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return CInt(String(decoding: digits, as: UTF8.self))
    }

    /// `SO_COOKIE` (asm-generic/socket.h), which Glibc's module does not export.
    static let cookieOption: CInt = 57

    /// The socket cookie of `descriptor`, or nil when it has none.
    static func cookie(of descriptor: CInt) -> UInt64? {
        var cookie: UInt64 = 0
        var length = socklen_t(MemoryLayout<UInt64>.size)
        guard getsockopt(descriptor, SOL_SOCKET, cookieOption, &cookie, &length) == 0, length == MemoryLayout<UInt64>.size else {
            return nil
        }
        return cookie
    }

    /// Sends the readable bytes of `bytes` without blocking: how many the
    /// kernel took (0 when the socket's buffer is full), or nil on any
    /// other error, which swift-nio meets and reports once it is handed
    /// the bytes.
    func send(_ bytes: ByteBuffer) -> Int? {
        let sent = bytes.withUnsafeReadableBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if sent >= 0 { return sent }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
    }
}
