import COverlay
import Synchronization
import ToastKit
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// toast-overlay's loop: the stream from toastd on a thread of its own
/// (ToastKit's resuming subscriber: toastd restarting is resumed with
/// `since`), handed to the main thread through a pipe; the Wayland display
/// on the main thread. The compositor going away ends it with an error,
/// so that systemd restarts it.
public final class Overlay: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    let socketPath: String
    private var model: OverlayModel
    private let lines = Mutex<[ServerLine]>([])
    private var wake: (read: Int32, write: Int32) = (-1, -1)

    public init(socketPath: String, scene: String) {
        self.socketPath = socketPath
        model = OverlayModel(scene: scene)
    }

    public func run(log: @escaping @Sendable (String) -> Void) throws {
        var error = [CChar](repeating: 0, count: 256)
        guard let overlay = toast_overlay_open(&error, Int32(error.count)) else {
            throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { toast_overlay_close(overlay) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        wake = (fds[0], fds[1])
        _ = fcntl(wake.read, F_SETFL, O_NONBLOCK)
        let path = socketPath
        let scene = model.scene
        DetachedThread.start { [self] in
            var machine = SubscriptionStateMachine(filter: EventFilter(scene: scene))
            let stop = ResumingSubscriber.run(
                path: path, machine: &machine, onWait: { _, why in log("toastd: \(why); reconnecting") }
            ) { line, _ in
                lines.withLock { $0.append(line) }
                var byte: UInt8 = 1
                _ = write(wake.write, &byte, 1)
            }
            if let stop { log("toastd refused the subscription: \(stop)") }
        }
        var polled = [
            pollfd(fd: toast_overlay_fd(overlay), events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            guard toast_overlay_flush(overlay) == 0 else { throw Failure(description: "the compositor went away") }
            if poll(&polled, 2, -1) < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "poll: \(String(cString: strerror(errno)))")
            }
            if polled[0].revents & Int16(POLLHUP | POLLERR) != 0 { throw Failure(description: "the compositor went away") }
            if polled[0].revents & Int16(POLLIN) != 0, toast_overlay_dispatch(overlay) != 0 {
                throw Failure(description: "the compositor went away")
            }
            if polled[1].revents & Int16(POLLIN) != 0 { drain(overlay) }
        }
    }

    /// Applies what the stream sent, and redraws the stacks it changed.
    private func drain(_ overlay: OpaquePointer) {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wake.read, &bytes, bytes.count) > 0 {}
        let pending = lines.withLock { lines in
            defer { lines = [] }
            return lines
        }
        var changed = Set<ToastAlignment>()
        for line in pending { changed.formUnion(model.apply(line)) }
        for alignment in changed { show(alignment, on: overlay) }
    }

    private func show(_ alignment: ToastAlignment, on overlay: OpaquePointer) {
        let records = model.stack(alignment)
        // The strings live until toast_overlay_show has copied them.
        let texts = records.map { record in
            (
                glyph: strdup(OverlayModel.style(of: record.toast.role).glyph),
                title: record.toast.title.map { strdup(OverlayModel.drawable($0)) },
                message: strdup(OverlayModel.drawable(record.toast.message))
            )
        }
        defer {
            for text in texts {
                free(text.glyph)
                free(text.title ?? nil)
                free(text.message)
            }
        }
        var cards = zip(records, texts).map { record, text in
            var progress = -1.0
            switch record.toast.progress {
            case .fraction(let value): progress = value
            case .indeterminate: progress = 0
            case .none: break
            }
            return toast_overlay_card(
                id: Int64(record.id), glyph: text.glyph, title: text.title ?? nil, message: text.message,
                color: OverlayModel.style(of: record.toast.role).color, progress: progress, repeat_count: Int32(record.repeatCount)
            )
        }
        let stack: Int32 = alignment == .top ? 0 : alignment == .center ? 1 : 2
        toast_overlay_show(overlay, stack, &cards, Int32(cards.count))
    }
}
