// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import SDBus
import CommandLineSupport
import ToastKit
import ToastProtocol
import ToastFreedesktop

#if canImport(Glibc)
import Glibc
#endif

/// toast-notify: shows toastd's toasts on the desktop's own notification
/// server (GNOME Shell, KDE, dunst, mako, swaync), so that toastd's
/// scheduler, dedupe, queueing and history sit in front of whatever popup
/// the desktop already draws.
///
/// - presented → `Notify`; updated → `Notify` with `replaces_id`; ended →
///   `CloseNotification`.
/// - `ActionInvoked` → `invoke`; `NotificationClosed` with reason 2 (the
///   person dismissed it) → `dismiss`.
///
/// One poll loop over the bus and the subscription; it reconnects to either
/// when it goes away (the subscription resumes with `since`), and it refuses
/// to mirror toastd onto toastd itself.
public final class NotifyMirror {
    public struct Configuration: Sendable {
        public var socketPath: String
        public var scene: String?
        public var busAddress: String?

        public init(socketPath: String, scene: String?, busAddress: String? = nil) {
            self.socketPath = socketPath
            self.scene = scene
            self.busAddress = busAddress
        }
    }

    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    let configuration: Configuration
    private var client: NotificationsClient?
    private var bus: Bus? { client?.bus }
    private var subscription: ToastConnection?
    /// The subscription to toastd: connect, resume, wait (ToastKit's one policy).
    private var machine: SubscriptionStateMachine
    /// When toastd's side is tried again (monotonic ms), after the machine's wait.
    private var toastdRetryAt: Int64 = 0
    private var toastdWaiting = false
    /// toastd id ↔ the notifier's id.
    private var notifierID: [Int64: UInt32] = [:]
    private var toastID: [UInt32: Int64] = [:]
    /// Notifier ids toast-notify closed itself (their NotificationClosed is an echo).
    private var closing: Set<UInt32> = []
    /// The notification server's unique bus name: only its signals count.
    /// It follows `NameOwnerChanged`: a notifier that restarts is a new
    /// owner, with new ids.
    private var server: String?
    /// The server reads markup (`body-markup`): text goes to it escaped.
    private var readsMarkup = false
    private var retryAt: Int64 = 0
    /// Why toast-notify must stop (toastd itself on the bus), once known.
    private var fatal: Refusal?
    /// The session bus's own wait before it is tried again (toastd's side
    /// waits as its machine says), with the same figures.
    private var backoff = SubscriptionStateMachine.firstBackoff
    /// What the mirror did, for the log (stderr).
    let log: (String) -> Void

    public init(configuration: Configuration, log: @escaping (String) -> Void) {
        self.configuration = configuration
        self.log = log
        machine = SubscriptionStateMachine(filter: EventFilter(scene: configuration.scene))
    }

    /// Runs until SIGINT or SIGTERM (the caller's signal handling), or
    /// throws `Refusal` when the notification server is toastd itself.
    public func run(until stop: Int32) throws {
        defer { closeAll() }
        while true {
            if bus == nil, monotonicMilliseconds() >= retryAt {
                connectBus()
                if let fatal { throw fatal }
            }
            if bus != nil, subscription == nil, monotonicMilliseconds() >= toastdRetryAt { try connectToastd() }
            // Messages a synchronous call already read sit in sd-bus's queue,
            // where poll cannot see them: process until it has nothing left.
            if let bus {
                try? bus.processAll()
                if let fatal { throw fatal }
                if !bus.isOpen {
                    lost("the session bus closed the connection")
                    continue
                }
            }
            var fds = [
                pollfd(fd: bus?.fd ?? -1, events: bus.map { Int16(truncatingIfNeeded: max($0.events, 0)) } ?? 0, revents: 0),
                pollfd(fd: subscription?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
            ]
            let due = bus == nil ? retryAt : subscription == nil ? toastdRetryAt : nil
            let wait = due.map { Int32(clamping: max(0, $0 - monotonicMilliseconds())) } ?? -1
            if poll(&fds, nfds_t(fds.count), wait) < 0 && errno != EINTR { return }
            if fds[2].revents != 0 { return }
            if fds[1].revents != 0 { try receive() }
        }
    }

    // MARK: - Connections

    private func connectBus() {
        do {
            try openBus()
        } catch let refusal as Refusal {
            fatal = refusal
        } catch {
            lost("\(error)")
        }
    }

    /// Drives the subscription's machine from a due connection attempt.
    private func connectToastd() throws {
        let action = toastdWaiting ? machine.timerFired() : machine.start()
        toastdWaiting = false
        try carry(action)
    }

    /// Carries out what the subscription's machine asks.
    private func carry(_ action: SubscriptionStateMachine.Action, why: String = "it closed the connection") throws {
        switch action {
        case .connect:
            do {
                subscription = try ToastConnection(path: configuration.socketPath)
                try carry(machine.connected())
            } catch {
                try carry(machine.failed(ResumingSubscriber.failure(error)), why: ResumingSubscriber.reason(error))
            }
        case .send(let request):
            do {
                try subscription?.send(request)
            } catch {
                try carry(machine.failed(ResumingSubscriber.failure(error)), why: ResumingSubscriber.reason(error))
            }
        case .deliver(let line):
            if case .reply = line { log("mirroring toastd at \(configuration.socketPath)") }
            show(line)
        case .wait(let milliseconds):
            // The notifications it shows stay; the subscription resumes where
            // it stopped, or resyncs from a snapshot that updates them in
            // place and closes what ended meanwhile.
            log("toastd: \(why); retrying in \(Double(milliseconds) / 1000) s")
            subscription = nil
            toastdWaiting = true
            toastdRetryAt = monotonicMilliseconds() + milliseconds
        case .stop(let stop):
            throw Refusal(description: "\(stop)")
        case .none:
            break
        }
    }

    private func openBus() throws {
        let client = try NotificationsClient(address: configuration.busAddress)
        // Which server is it? Mirroring toastd onto toastd would loop.
        let information = try client.serverInformation()
        guard information.name != "toastd" else {
            throw Refusal(description: "the notification server on this bus is toastd itself; toast-notify mirrors toastd onto another server")
        }
        server = information.sender
        readsMarkup = (try? client.capabilities())?.contains("body-markup") ?? false
        // Servers such as dunst send their signals to the notification's
        // sender only, from their unique name: match on the object, then
        // check the sender against the server's unique name (`signal`).
        try client.bus.onSignal(path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications") {
            [unowned self] message in signal(message)
        }
        // A notifier that restarts (mako, dunst) owns the name anew, under a
        // new unique name and numbering from 1: its old ids mean nothing.
        try client.bus.onSignal(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"
        ) { [unowned self] message in ownerChanged(message) }
        self.client = client
        backoff = SubscriptionStateMachine.firstBackoff
        log("showing toasts on \(information.name)")
    }

    /// The bus connection is gone: the notifier's ids went with it (or
    /// belong to a server that restarted), so everything is shown anew from
    /// a fresh snapshot once both sides are back.
    private func lost(_ why: String) {
        log("disconnected: \(why); retrying in \(Double(backoff) / 1000) s")
        client = nil
        subscription = nil
        notifierID = [:]
        toastID = [:]
        closing = []
        // A new notifier: everything is shown anew from a fresh snapshot.
        machine = SubscriptionStateMachine(filter: EventFilter(scene: configuration.scene))
        toastdWaiting = false
        toastdRetryAt = 0
        retryAt = monotonicMilliseconds() + backoff
        backoff = min(SubscriptionStateMachine.maxBackoff, backoff * 2)
    }

    /// `NameOwnerChanged` for the notifications name: forget the old
    /// owner's ids, take signals from the new one only, and show toastd's
    /// live toasts again on it (a fresh snapshot).
    private func ownerChanged(_ message: BusMessage) {
        guard let name = try? message.readString(), name == NotificationServer.busName,
            (try? message.readString()) != nil, let owner = try? message.readString()
        else { return }
        notifierID = [:]
        toastID = [:]
        closing = []
        guard !owner.isEmpty else {
            server = nil
            log("the notification server left the bus; waiting for the next")
            return
        }
        server = owner
        if let client, let information = try? client.serverInformation() {
            if information.name == "toastd" {
                fatal = Refusal(description: "the notification server on this bus is now toastd itself; toast-notify stops")
                return
            }
            readsMarkup = (try? client.capabilities())?.contains("body-markup") ?? false
            log("\(information.name) took the notifications name; showing toasts on it again")
        }
        // Resync: the subscription starts over, and its snapshot shows what is live.
        subscription = nil
        machine = SubscriptionStateMachine(filter: EventFilter(scene: configuration.scene))
        toastdWaiting = false
        toastdRetryAt = 0
    }

    // MARK: - toastd → the notifier

    private func receive() throws {
        guard let subscription else { return }
        do {
            try subscription.receive()
        } catch {
            return try carry(machine.failed(ResumingSubscriber.failure(error)))
        }
        while let text = subscription.bufferedLine() {
            guard let value = try? JSONValue.parse(text), let line = try? WireDecoder.decodeServerLine(value) else { continue }
            try carry(machine.received(line))
        }
    }

    /// A line of the stream on the notifier.
    private func show(_ line: ServerLine) {
        switch line {
        case .snapshot(let snapshot):
            // Show what toastd shows now; close what it no longer has.
            var live: Set<Int64> = []
            for record in snapshot.snapshot.toasts where record.state == .shown {
                live.insert(Int64(record.id))
                show(record, time: snapshot.time)
            }
            for id in notifierID.keys where !live.contains(id) { close(id) }
        case .event(let event):
            switch event.kind {
            case .presented(let record), .updated(let record):
                if record.state == .shown { show(record, time: event.time) }
            case .dismissed(let record, _), .cancelled(let record, _):
                close(Int64(record.id))
            default:
                break
            }
        case .reply, .lagged, .shutdown, .unknown:
            break
        }
    }

    private func show(_ record: ToastRecord, time: Int64?) {
        guard let client else { return }
        let id = Int64(record.id)
        let replaces = notifierID[id] ?? 0
        do {
            let shown = try client.notify(Self.notification(for: record, replacing: replaces, time: time, markup: readsMarkup))
            if shown != 0 {
                if replaces != 0 && replaces != shown { toastID[replaces] = nil }
                notifierID[id] = shown
                toastID[shown] = id
            }
        } catch {
            log("Notify failed for toast \(id): \(error)")
        }
    }

    /// A toast as the notifier shows it: its title as the summary (else its
    /// message), its source as the app, its role and level as the urgency
    /// (failure, or a level of 80 or more, is critical; plain is low), its
    /// progress as `value`, its reuse id as the stack tag, its category and
    /// image as theirs. Text goes escaped to a server that reads markup
    /// (`markup`), so a toast's `<b>` is drawn as written. toastd ends the
    /// toast itself and closes it; the expiry only matters if toast-notify
    /// is gone by then.
    static func notification(for record: ToastRecord, replacing replaces: UInt32, time: Int64?, markup: Bool = false) -> Notification {
        let toast = record.toast
        func text(_ plain: String) -> String { markup ? NotificationMapping.escape(plain) : plain }
        var hints = Notification.Hints()
        hints.urgency = urgency(of: toast).level
        if case .fraction(let fraction) = toast.progress { hints.value = Int32((fraction * 100).rounded()) }
        hints.stackTag = toast.reuseID
        hints.category = toast.category
        hints.desktopEntry = toast.desktopEntry
        hints.soundName = toast.soundName
        switch toast.image {
        case .path(let path)?: hints.imagePath = path
        case .pixels?: hints.image = toast.image
        case nil: break
        }
        hints.resident = toast.resident
        hints.transient = toast.transient
        let actions = toast.actions.flatMap { [$0.id, $0.id == "default" ? "" : $0.label] }
        var timeout: Int32 = 0
        if let expires = record.expiresAt, let time { timeout = Int32(clamping: max(1, expires - time)) }
        return Notification(
            appName: toast.source ?? "toastd", replacesID: replaces, appIcon: toast.icon ?? "",
            summary: toast.title ?? toast.message, body: toast.title == nil ? "" : text(toast.message), actions: actions,
            hints: hints, expireTimeout: timeout
        )
    }

    /// The urgency a toast asks for: its own (from the bus), else from its
    /// role and level.
    static func urgency(of toast: Toast) -> ToastUrgency {
        if let urgency = toast.urgency { return urgency }
        if toast.role == .failure || (toast.level ?? 0) >= 80 { return .critical }
        return toast.role == .plain ? .low : .normal
    }

    private func close(_ id: Int64) {
        guard let shown = notifierID.removeValue(forKey: id) else { return }
        toastID[shown] = nil
        guard let client else { return }
        closing.insert(shown)
        try? client.close(shown)
    }

    /// On the way out: what toast-notify showed goes, so that the next run
    /// (which shows toastd's current stack again) does not leave doubles.
    private func closeAll() {
        for id in Array(notifierID.keys) { close(id) }
        client = nil
    }

    // MARK: - The notifier → toastd

    private func signal(_ message: BusMessage) {
        guard let server, message.sender == server, let shown = try? message.read(UInt32.self) else { return }
        switch message.member {
        case "ActionInvoked":
            guard let id = toastID[shown], let key = try? message.readString() else { return }
            request(WireEncoder.request(.command(.invoke(.id(ToastID(id)), actionID: key))))
        case "NotificationClosed":
            let reason = (try? message.read(UInt32.self)) ?? 0
            if closing.remove(shown) != nil { return }
            guard let id = toastID.removeValue(forKey: shown) else { return }
            notifierID[id] = nil
            // Only a person's dismissal is news to toastd; an expiry there is not.
            if reason == 2 { request(WireEncoder.request(.command(.dismiss(.id(ToastID(id)))))) }
        default:
            break
        }
    }

    /// A command on a short connection of its own, so its reply does not mix with events.
    private func request(_ request: JSONValue) {
        do {
            let reply = try ToastConnection(path: configuration.socketPath).request(request, timeout: 5_000)
            if case .failure(let error) = WireDecoder.reply(reply) { log("toastd refused \(request.serialized): \(error.message)") }
        } catch {
            log("cannot reach toastd: \(error)")
        }
    }
}
