// SPDX-License-Identifier: Apache-2.0
import CHeapTrim
import COverlay
import Synchronization
import ToastConfig
import ToastKit
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// toast-overlay's loop, on the main thread: the display (Wayland or X11),
/// the stream from toastd (read on a thread of its own by ToastKit's
/// resuming subscriber, so toastd restarting is resumed with `since`, and
/// handed over through a pipe), the configuration file (inotify: the style
/// is read again when config.toml changes), and the timers the cards on
/// screen need (a countdown's next second, a spinner, a transition). With
/// nothing shown it sleeps in poll(2) with no timeout: no wakeups at rest.
/// The display going away ends it with an error, so that systemd restarts it.
public final class Overlay: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public enum Backend: String, Sendable, CaseIterable {
        case auto, wayland, x11
    }

    /// What the other threads hand to the main one.
    enum Input {
        case line(ServerLine)
        case notice(ToastID, String)
    }

    let socketPath: String
    let configPath: String?
    let backend: Backend
    let log: @Sendable (String) -> Void
    private var model: OverlayModel
    private var style = OverlayStyle()
    private var icons: IconTheme
    private let environment: [String: String]
    private let inputs = Mutex<[Input]>([])
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var shown: [ToastAlignment: [CardContent]] = [:]
    private var notices: [ToastID: (text: String, until: Int64)] = [:]
    static let noticeMilliseconds: Int64 = 4_000
    private var startUpPages = StartUpPages()

    public init(socketPath: String, scene: String, configPath: String?, backend: Backend, environment: [String: String], log: @escaping @Sendable (String) -> Void) {
        self.socketPath = socketPath
        self.configPath = configPath
        self.backend = backend
        self.environment = environment
        self.log = log
        model = OverlayModel(scene: scene)
        icons = IconTheme(theme: style.iconTheme, environment: environment)
    }

    public func run() throws {
        // One malloc arena for every thread. The subscription's thread
        // otherwise gets an arena of its own, which held 0.7 MiB of
        // anonymous memory once idle, where the one heap grew by 0.26
        // (docs/BENCHMARKS.md, "toast-overlay's code in the order its cards
        // run it"); two threads, one of them asleep, never contend for it.
        _ = toastd_single_malloc_arena()
        loadStyle()
        var error = [CChar](repeating: 0, count: 256)
        let opened = withCStyle(style) { cStyle in
            toast_overlay_open(backend == .wayland ? 1 : backend == .x11 ? 2 : 0, &cStyle, &error, Int32(error.count))
        }
        guard let overlay = opened else {
            throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { toast_overlay_close(overlay) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wake = (fds[0], fds[1])
        startSubscription()
        let watcher = ConfigWatcher(path: configPath)
        var polled = [
            pollfd(fd: toast_overlay_fd(overlay), events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            pollfd(fd: watcher?.fd ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            guard toast_overlay_flush(overlay) == 0 else { throw Failure(description: "the display went away") }
            let wait = timeout(overlay)
            if startUpPages.sleeping(idle: wait < 0 && shown.values.allSatisfy(\.isEmpty)) { letGoOfStartUpCode() }
            if poll(&polled, nfds_t(polled.count), wait) < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "poll: \(String(cString: strerror(errno)))")
            }
            if polled[0].revents & Int16(POLLHUP | POLLERR) != 0 { throw Failure(description: "the display went away") }
            if polled[0].revents & Int16(POLLIN) != 0, toast_overlay_dispatch(overlay) != 0 {
                throw Failure(description: "the display went away")
            }
            takeClicks(overlay)
            if polled[1].revents & Int16(POLLIN) != 0 { drain() }
            if polled[2].revents & Int16(POLLIN) != 0, watcher?.changed() == true {
                loadStyle()
                withCStyle(style) { toast_overlay_set_style(overlay, &$0) }
                shown = [:]
            }
            toast_overlay_tick(overlay)
            // Every stack whose cards changed: a line, a notice, a countdown's second, a new style.
            redraw(overlay)
        }
    }

    // MARK: - The stream

    private func startSubscription() {
        let path = socketPath
        let scene = model.scene
        let log = log
        DetachedThread.start { [self] in
            var machine = SubscriptionStateMachine(filter: EventFilter(scene: scene))
            let stop = ResumingSubscriber.run(
                path: path, machine: &machine, onWait: { _, why in log("toastd: \(why); reconnecting") }
            ) { line, _ in
                post(.line(line))
            }
            if let stop { log("toastd refused the subscription: \(stop)") }
        }
    }

    private func post(_ input: Input) {
        inputs.withLock { $0.append(input) }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Applies what the other threads sent (the loop then redraws what changed).
    private func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wake.read, &bytes, bytes.count) > 0 {}
        let pending = inputs.withLock { inputs in
            defer { inputs = [] }
            return inputs
        }
        for input in pending {
            switch input {
            case .line(let line):
                _ = model.apply(line)
            case .notice(let id, let text):
                notices[id] = (text, monotonicMilliseconds() + Self.noticeMilliseconds)
            }
        }
    }

    // MARK: - Drawing

    /// Shows each stack whose cards changed (a countdown's second, a notice ending included).
    private func redraw(_ overlay: OpaquePointer) {
        let now = wallClockMilliseconds()
        let monotonic = monotonicMilliseconds()
        notices = notices.filter { $0.value.until > monotonic && model.record($0.key) != nil }
        let spin = Double(monotonic % 1_000) / 1_000
        for alignment in ToastAlignment.allCases {
            let cards = model.stack(alignment).map { record in
                CardContent(record: record, now: now, notice: notices[record.id]?.text, icons: &icons)
            }
            guard cards != shown[alignment] || cards.contains(where: \.spinner) else { continue }
            shown[alignment] = cards
            CardBridge.show(cards, in: alignment, on: overlay, spinnerPhase: spin)
            if !cards.isEmpty { startUpPages.drew() }
        }
    }

    /// How long poll may sleep: until a transition's next frame, a countdown's
    /// next second, a spinner's next step or a notice's end; forever with none.
    private func timeout(_ overlay: OpaquePointer) -> Int32 {
        var wait = Int64(toast_overlay_timeout(overlay))
        func sooner(_ milliseconds: Int64) { wait = wait < 0 ? milliseconds : min(wait, milliseconds) }
        let now = wallClockMilliseconds()
        let monotonic = monotonicMilliseconds()
        for cards in shown.values {
            for card in cards {
                if card.spinner { sooner(125) }
                if card.countdown != nil, let expires = model.record(card.id)?.expiresAt {
                    // The next time the rounded-up seconds change. Past its
                    // time (toastd's clock and this one differ a little), it
                    // says 0s and waits for toastd's event: no timer.
                    if let wake = CardContent.nextCountdownChange(milliseconds: expires - now) { sooner(wake) }
                }
            }
        }
        for notice in notices.values { sooner(max(1, notice.until - monotonic)) }
        return Int32(clamping: wait)
    }

    /// Lets go of the code pages only the start (or the first card) ran, on
    /// a thread of its own: reading smaps and reading the code back take a
    /// few milliseconds (`StartUpPages`). `TOAST_OVERLAY_KEEP_CODE_PAGES`
    /// keeps them, for the benchmark and the test that compare. Then the
    /// heap's free pages that start-up (or the first card) left between the
    /// ones in use go back too: about 0.1 MiB.
    private func letGoOfStartUpCode() {
        let keepCode = environment["TOAST_OVERLAY_KEEP_CODE_PAGES"] != nil
        DetachedThread.start {
            if !keepCode, let executable = OwnExecutable() {
                CodeFolios.reread(CodePages.release().mappings, of: executable)
            }
            _ = toastd_malloc_trim()
        }
    }

    // MARK: - Clicks

    private func takeClicks(_ overlay: OpaquePointer) {
        var click = toast_overlay_click()
        while toast_overlay_next_click(overlay, &click) != 0 {
            guard let record = model.record(ToastID(click.id)) else { continue }
            let target: ClickPolicy.Target = click.target == 1 ? .close : click.target == 2 ? .button(Int(click.action)) : .body
            let outcome = ClickPolicy.outcome(of: target, on: record)
            if case .notice(let id, let text) = outcome {
                post(.notice(id, text))
            } else if let request = ClickPolicy.request(outcome) {
                send(request, for: record.id)
            }
        }
    }

    /// Sends a click's request off the main thread (drawing never waits on toastd).
    private func send(_ request: Request, for id: ToastID) {
        let path = socketPath
        let log = log
        DetachedThread.start { [self] in
            do throws(ToastKitError) {
                try BlockingToasts(socket: path).perform(request, timeout: .seconds(5))
            } catch {
                if error.code == .notDismissible {
                    post(.notice(id, ClickPolicy.notDismissible))
                } else {
                    log("toastd refused a click's request: \(error)")
                }
            }
        }
    }

    // MARK: - Style

    private func loadStyle() {
        guard let path = configPath else { return }
        switch OverlayStyleFile.read(path) {
        case .success(let loaded):
            style = loaded
            icons = IconTheme(theme: style.iconTheme, environment: environment)
        case .failure(let why):
            log("\(why); keeping the style in use")
        }
    }
}
