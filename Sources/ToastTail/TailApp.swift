// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import CommandLineSupport
import ToastKit
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The interactive viewer: one poll(2) loop over the subscription, the
/// keyboard and a signal pipe. Events update the model; a frame is drawn
/// when something changed, at most every 33 ms (about 30 frames a second)
/// however fast events come, and on a 100 ms ticker only while a spinner or
/// countdown is on screen. An idle viewer sleeps in poll.
public final class TailApp {
    public struct Configuration: Sendable {
        public var socketPath: String
        public var scene: String
        public var roles: [String]
        public var color: Bool

        public init(socketPath: String, scene: String, roles: [String], color: Bool) {
            self.socketPath = socketPath
            self.scene = scene
            self.roles = roles
            self.color = color
        }
    }

    static let frameInterval: Int64 = 33
    static let tickInterval: Int64 = 100

    private let configuration: Configuration
    private let terminal = TerminalSession()
    private var model: TailModel
    private var subscription: Subscription
    private var keys = KeyDecoder()
    private var lastFrame: Screen?
    private var lastFrameAt: Int64 = 0
    private var dirty = true
    private var size: (columns: Int, rows: Int)

    public init(configuration: Configuration) {
        self.configuration = configuration
        model = TailModel(scene: configuration.scene)
        subscription = Subscription(socketPath: configuration.socketPath, scene: configuration.scene, roles: configuration.roles)
        size = TerminalSession.size() ?? (80, 24)
    }

    /// Why the viewer stopped on its own (a server it must not trust), if it did.
    public var fatal: String? { subscription.fatal }

    /// Runs until `q`, Ctrl-C, SIGINT, SIGTERM or SIGHUP, or until `fatal`;
    /// the terminal is restored on every way out.
    public func run() {
        let signals = SignalPipe.install([SIGINT, SIGTERM, SIGHUP, SIGWINCH])
        let keyboard = TerminalSession.isTerminal(STDIN_FILENO)
        terminal.enter(rawInput: keyboard)
        defer { terminal.restore() }

        while true {
            let now = subscription.now
            subscription.connectIfDue(model: &model)
            if subscription.fatal != nil { return }
            let wait = pollTimeout(now: now)
            var fds = [
                pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                pollfd(fd: keyboard ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: subscription.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, nfds_t(fds.count), Int32(clamping: wait))
            if ready < 0 && errno != EINTR { return }
            if fds[0].revents != 0 {
                for signal in SignalPipe.drain(signals) {
                    if signal == SIGWINCH {
                        size = TerminalSession.size() ?? size
                        lastFrame = nil  // a resize may leave anything on screen: redraw every row
                        dirty = true
                    } else {
                        return
                    }
                }
            }
            if fds[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 { return }
                for key in keys.feed(buffer.prefix(max(0, count))) {
                    if key == .quit { return }
                    handle(key)
                }
            }
            if fds[2].revents != 0 {
                if subscription.receive(into: &model) { dirty = true }
            }
            drawIfDue()
        }
    }

    private func pollTimeout(now: Int64) -> Int64 {
        var wait: Int64 = 60_000
        if dirty { wait = max(0, lastFrameAt + Self.frameInterval - monotonicMilliseconds()) }
        if StackRenderer.animates(model, now: now) { wait = min(wait, Self.tickInterval) }
        if let retry = subscription.nextAttemptIn() { wait = min(wait, retry) }
        return wait
    }

    private func drawIfDue() {
        let clock = monotonicMilliseconds()
        let now = subscription.now
        guard dirty || StackRenderer.animates(model, now: now) || lastFrame == nil else { return }
        guard clock - lastFrameAt >= Self.frameInterval else { return }
        let screen = StackRenderer.render(model, .init(columns: size.columns, rows: size.rows, now: now))
        if screen != lastFrame {
            terminal.write(screen.update(from: lastFrame, color: configuration.color))
            lastFrame = screen
        }
        lastFrameAt = clock
        dirty = false
    }

    private func handle(_ key: TailKey) {
        dirty = true
        let now = subscription.now
        switch key {
        case .up: model.moveSelection(by: -1)
        case .down: model.moveSelection(by: 1)
        case .redraw: lastFrame = nil
        case .quit: break
        case .dismiss:
            guard let toast = model.target else { return notice("nothing to dismiss", now) }
            guard toast.dismissible else {
                return notice("this toast is not dismissible: its program ends it", now)
            }
            command(WireEncoder.request(.command(.dismiss(.id(ToastID(toast.id))))), now)
        case .action(let number):
            guard let toast = model.target else { return notice("no toast selected", now) }
            let buttons = toast.buttons
            guard number <= buttons.count else { return notice("this toast has no action \(number)", now) }
            command(WireEncoder.request(.command(.invoke(.id(ToastID(toast.id)), actionID: buttons[number - 1].id))), now)
        case .activate:
            guard let toast = model.target else { return notice("no toast selected", now) }
            guard toast.hasDefaultAction else {
                return notice("this toast has no default action; press 1-\(max(1, toast.buttons.count)) for its actions", now)
            }
            command(WireEncoder.request(.command(.invoke(.id(ToastID(toast.id)), actionID: TailToast.bodyAction))), now)
        case .clear:
            command(WireEncoder.request(.command(.clear(ClearScope(scene: configuration.scene)))), now)
        case .pause:
            command(WireEncoder.request(.togglePause(level: nil)), now)
        }
    }

    private func notice(_ text: String, _ now: Int64) {
        model.notice = .init(text: text, until: now + 3_000)
    }

    /// Sends a command on a connection of its own, so that the reply is not
    /// mixed into the event stream. A refusal is shown on the status line.
    private func command(_ request: JSONValue, _ now: Int64) {
        do {
            let connection = try ToastConnection(path: configuration.socketPath)
            let reply = try connection.request(request, timeout: 2_000)
            if case .failure(let error) = WireDecoder.reply(reply) { notice(Terminal.sanitize(error.message), now) }
        } catch {
            notice("\(error)".split(separator: "\n").first.map(String.init) ?? "failed", now)
        }
    }
}
