// SPDX-License-Identifier: Apache-2.0
import SDBus
import Synchronization
import ToastCore
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// toastd as `org.freedesktop.Notifications` (spec 1.2) on the session bus.
///
/// The `sd_bus` object lives on the backend's executor, toastd's event loop,
/// which alone touches it once connected (sd-bus objects belong to the
/// thread that uses them): sd-bus runs on the loop through its fd, events
/// and timeout. A watcher thread (`BusWatcher`) connects, asks for the name
/// (both block, so never on the loop), and then only waits for the fd and
/// hands each readiness to the loop, where `sd_bus_process` runs and the
/// calls are answered. So a Notify costs one thread hand-off, and sd-bus
/// never blocks the loop: its socket is non-blocking and toastd makes no
/// synchronous calls on it after connecting.
///
/// Each call goes to toastd's hub in process (`NotificationBackend`: a Notify
/// is an `add`, or an `update` for `replaces_id`); its message is kept and
/// answered when the outcome, committed, comes back. The hub's `action` and
/// end events become `ActionInvoked` and `NotificationClosed`. If the bus
/// goes away, the watcher connects again (with backoff) and asks for the
/// name again.
///
/// Toasts from the bus are toasts like any other: scheduled, persisted and
/// seen by every viewer; D-Bus ids are toastd's ids, and every Notify
/// without `replaces_id` gets one no other notification had (its toast
/// does not dedupe by text). A sender replaces and closes only its own
/// notifications (`Owner`).
public final class NotificationServer: @unchecked Sendable {
    public static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    public enum Ownership: Sendable, Equatable {
        /// Ask for the name; if another server has it, leave it be.
        case ifFree
        /// Take the name over from a server that allows it (as dunst's -replace).
        case replace
    }

    public enum State: Sendable, Equatable {
        case starting
        case owner
        /// Another server owns the name; toastd keeps serving its socket.
        case notOwner(String)
        case failed(String)

        public var description: String {
            switch self {
            case .starting: "starting"
            case .owner: "serving \(NotificationServer.busName)"
            case .notOwner(let why): "not serving \(NotificationServer.busName): \(why)"
            case .failed(let why): "the freedesktop bridge failed: \(why)"
            }
        }
    }

    /// A method call waiting for toastd's outcome. Its message is referenced
    /// until answered, and touched only on the executor.
    struct PendingCall: @unchecked Sendable {
        enum Kind {
            /// `fallback`: the add to try when the `replaces_id` update finds no toast.
            case notify(keys: [String: String], fallback: RequestEnvelope?, owner: Owner)
            case close
        }

        let message: BusMessage
        let kind: Kind
    }

    /// Where a toast from the bus comes from when its call names no app.
    static let defaultSource = "dbus"

    let backend: any NotificationBackend
    let ownership: Ownership
    let version: String
    /// Told of every change of state (from either thread).
    let onState: @Sendable (State) -> Void
    /// Told what a call had wrong that was left out (a malformed image, a
    /// hint of the wrong type); the notification itself is kept.
    let onProblem: @Sendable (String) -> Void

    /// Who may replace or close a notification: the app that sent it, and
    /// the connection that did. A `replaces_id` from the same app name (a
    /// script's `notify-send -a volume -r ID`, each run a new connection)
    /// or the same connection replaces it; `CloseNotification`, which names
    /// no app, only from that connection. Anything else, a socket client's
    /// toast included, is someone else's: a `replaces_id` of it is a new
    /// notification (as the spec has it for an unknown id), and a close
    /// changes nothing.
    struct Owner: Sendable, Equatable {
        let app: String
        let connection: String
    }
    private let watcher = BusWatcher()

    /// Where the bridge keeps what it knows of live notifications across a
    /// restart of toastd (`NotificationOwners`): a file in the state
    /// directory, read once at start, written `rememberDelay` after they
    /// change and again when the bridge stops.
    public struct Memory: Sendable {
        /// The file's bytes, or nil when there is none.
        public var read: @Sendable () throws -> [UInt8]?
        public var write: @Sendable ([UInt8]) throws -> Void

        public init(read: @escaping @Sendable () throws -> [UInt8]?, write: @escaping @Sendable ([UInt8]) throws -> Void) {
            self.read = read
            self.write = write
        }
    }
    let memory: Memory?
    /// The most of its file `Memory.read` needs to read.
    public static let memoryLimit = NotificationOwners.maxBytes

    // On the executor only, once the watcher has handed the connection over.
    private var bus: Bus?
    /// The owner of each live notification from the bus.
    private var owners: [ToastID: Owner] = [:]
    /// Each live toast's action ids → the D-Bus action keys they stand for.
    private var actionKeys: [ToastID: [String: String]] = [:]
    private var watchingEvents = false
    /// Whether a write of the owners is due (`rememberSoon`).
    private var rememberPending = false
    /// How long after a change of the owners they are written: a crash of
    /// toastd (a kill, the watchdog's abort) loses at most the changes of
    /// the last quarter second, a burst of notifications costs one write,
    /// and a toastd at rest writes nothing and arms no timer.
    static let rememberDelay = Duration.milliseconds(250)

    /// `memory`: where to keep owners and action keys across a restart
    /// (a durable toastd's state directory); nil keeps them in memory only.
    public init(
        backend: any NotificationBackend, ownership: Ownership, version: String, memory: Memory? = nil,
        onState: @escaping @Sendable (State) -> Void, onProblem: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.backend = backend
        self.ownership = ownership
        self.version = version
        self.memory = memory
        self.onState = onState
        self.onProblem = onProblem
        recall()
    }

    /// Takes back what the last run kept (before anything runs on the executor).
    private func recall() {
        guard let memory else { return }
        let bytes: [UInt8]?
        do {
            bytes = try memory.read()
        } catch {
            return onProblem("the notifications' owners from the last run are not read: \(error)")
        }
        guard let bytes else { return }
        let (kept, problems) = NotificationOwners.decode(bytes)
        for problem in problems.prefix(5) { onProblem("the notifications' owners from the last run: \(problem)") }
        if problems.count > 5 { onProblem("the notifications' owners from the last run: \(problems.count - 5) more lines left out") }
        owners = kept.owners
        actionKeys = kept.actionKeys
    }

    /// Has the owners written `rememberDelay` from now, unless a write is
    /// due already (on the executor, as they change).
    private func rememberSoon() {
        guard memory != nil, !rememberPending else { return }
        rememberPending = true
        backend.execute(after: Self.rememberDelay) { [self] in
            rememberPending = false
            remember()
        }
    }

    /// Keeps what the bridge knows of the toasts still live, for the next
    /// run (on the executor, a moment after they change and as the bridge
    /// stops).
    private func remember() {
        guard let memory else { return }
        owners = owners.filter { backend.isLive($0.key) }
        actionKeys = actionKeys.filter { backend.isLive($0.key) }
        do {
            try memory.write(NotificationOwners(owners: owners, actionKeys: actionKeys).encoded())
        } catch {
            onProblem("the notifications' owners are not kept for the next run: \(error)")
        }
    }

    /// Starts the watcher's thread, which connects.
    public func start() {
        DetachedThread.start { self.watch() }
    }

    /// Releases the name and leaves the bus; `done` runs on the executor
    /// once it has (or at once, there, if the watcher had already ended).
    public func stop(then done: @escaping @Sendable () -> Void = {}) {
        let ended = watcherEnded.withLock { state in
            if state.ended { return true }
            state.waiters.append(done)
            return false
        }
        if ended { backend.execute(done) }
        watcher.stop()
    }

    /// Whether the watcher's thread has ended, and who waits for it.
    private let watcherEnded = Mutex<(ended: Bool, waiters: [@Sendable () -> Void])>((false, []))

    // MARK: - The watcher's thread

    private func watch() {
        defer {
            let waiters = watcherEnded.withLock { state in
                state.ended = true
                return state.waiters
            }
            // Before the waiters: toastd stops its hub once they have run.
            backend.execute { self.remember() }
            // After the detach it may have queued there.
            for waiter in waiters { backend.execute(waiter) }
        }
        while let bus = connect() {
            guard watcher.watch(bus.fd, events: bus.events) else {
                onState(.failed("cannot watch the bus connection: \(String(cString: strerror(errno)))"))
                return
            }
            // From here on the connection is the executor's alone.
            backend.execute { self.attach(bus) }
            waiting: while true {
                switch watcher.wait() {
                case .readable, .deadline: backend.execute { self.pump() }
                case .lost: break waiting
                case .stopped:
                    backend.execute { self.detach() }
                    return
                }
            }
        }
    }

    struct Failure: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// A connection that owns the name, or nil when another server owns it
    /// (toastd then leaves the bus alone) or the bridge was stopped. A
    /// session bus may come up after toastd (socket activation at login), or
    /// restart under it: this retries with backoff (0.25 s doubling to 5 s)
    /// until it answers.
    private func connect() -> Bus? {
        var backoff: Int32 = 250
        var lastFailure = ""
        while true {
            do {
                return try openOwningName()
            } catch {
                // Said once per reason, not once per attempt.
                if "\(error)" != lastFailure {
                    lastFailure = "\(error)"
                    onState(.failed("\(error); retrying"))
                }
                watcher.setDeadline(BusWatcher.monotonicMicroseconds() + UInt64(backoff) * 1_000)
                if watcher.wait() == .stopped { return nil }
                backoff = min(5_000, backoff * 2)
            }
        }
    }

    /// One attempt: a connection that serves the object and owns the name,
    /// or nil when another server owns it. A connection that fails half-way
    /// is closed before the error is thrown.
    private func openOwningName() throws -> Bus? {
        let bus = try Bus.session()
        try bus.serve(path: Self.path) { [weak self] message in self?.handle(message) ?? false }
        if try bus.requestName(Self.busName, replaceExisting: ownership == .replace) == .taken {
            let hint = ownership == .ifFree ? " (toastd --freedesktop=replace takes it over)" : " and does not let it go"
            onState(.notOwner("another notification server owns it" + hint))
            return nil
        }
        return bus
    }

    // MARK: - On the executor

    private func attach(_ bus: Bus) {
        self.bus = bus
        if !watchingEvents {
            watchingEvents = true
            backend.watch { event in
                if Self.signals(event) { self.signal(event) }
            }
        }
        onState(.owner)
        pump()
    }

    /// Processes whatever the connection has, then re-arms the watcher.
    private func pump() {
        guard let bus else { return }
        do {
            try bus.processAll()
        } catch {
            return lose("\(error)")
        }
        rearm(bus)
    }

    private func rearm(_ bus: Bus) {
        let events = bus.events
        guard events >= 0 else { return lose("\(BusError("the bus connection", code: events))") }
        watcher.rearm(bus.fd, events: events)
        watcher.setDeadline(bus.deadline ?? .max)
    }

    /// After a send outside `pump`: if sd-bus could not write it all, the
    /// watcher must wait for room too.
    private func flushLater(_ bus: Bus) {
        if bus.wantsToWrite { rearm(bus) }
    }

    /// The bus went away: close it and let the watcher connect again.
    private func lose(_ why: String) {
        guard bus != nil else { return }
        bus = nil
        onState(.failed("lost the session bus (\(why)); reconnecting"))
        watcher.lose()
    }

    private func detach() {
        guard let bus else { return }
        bus.releaseName(Self.busName)
        // Dropping it writes what is queued (the release, the last replies):
        // the bus reads it at once, and toastd is stopping.
        self.bus = nil
    }

    // MARK: - Methods

    /// Dispatches one method call on our object; true when it was answered.
    private func handle(_ message: BusMessage) -> Bool {
        func call(_ member: String) -> Bool { message.isMethodCall(interface: Self.interface, member: member) }
        if call("Notify") { return notify(message) }
        if call("CloseNotification") { return close(message) }
        if call("GetCapabilities") {
            return reply(message) { reply in
                try reply.container("a", "s") {
                    for capability in NotificationMapping.capabilities { try reply.append(capability) }
                }
            }
        }
        if call("GetServerInformation") {
            return reply(message) { reply in
                for value in ["toastd", "toastd", version, "1.2"] { try reply.append(value) }
            }
        }
        if message.isMethodCall(interface: "org.freedesktop.DBus.Introspectable", member: "Introspect") {
            return reply(message) { try $0.append(Self.introspection) }
        }
        return false
    }

    private func notify(_ message: BusMessage) -> Bool {
        var notification: Notification
        do {
            notification = try Self.read(message)
        } catch {
            return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", "\(error)")
        }
        let connection = message.sender ?? ""
        let owner = Owner(app: notification.appName.isBlank ? connection : notification.appName, connection: connection)
        for problem in notification.problems { onProblem("Notify from \(owner.app): \(problem)") }
        let (toast, keys) = NotificationMapping.toast(for: notification, owner: owner.app, source: "dbus:\(connection)")
        // The bridge never chooses an alignment or dismissibility: a role's
        // defaults from the configuration fill them, as for any client that
        // leaves them out.
        let add = RequestEnvelope(request: .command(.add(toast)), defaulted: [.alignment, .dismissible])
        let replaces = ToastID(notification.replacesID)
        if notification.replacesID != 0, let holder = owners[replaces], holder.app == owner.app || holder.connection == connection {
            let update = RequestEnvelope(request: .command(.update(.id(replaces), NotificationMapping.patch(for: toast))))
            submit(update, PendingCall(message: message, kind: .notify(keys: keys.toKey, fallback: add, owner: owner)))
        } else {
            // New, or someone else's id: a notification of its own.
            submit(add, PendingCall(message: message, kind: .notify(keys: keys.toKey, fallback: nil, owner: owner)))
        }
        return true
    }

    private func close(_ message: BusMessage) -> Bool {
        guard let id = try? message.read(UInt32.self) else {
            return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", "CloseNotification takes an id (u)")
        }
        // Only the connection that showed it may close it; anyone else's
        // close is answered as for an id that is gone, and changes nothing.
        guard let holder = owners[ToastID(id)], holder.connection == message.sender else {
            return reply(message) { _ in }
        }
        submit(RequestEnvelope(request: .command(.remove(.id(ToastID(id))))), PendingCall(message: message, kind: .close))
        return true
    }

    /// Hands a request to toastd; its outcome comes back on the executor.
    private func submit(_ request: RequestEnvelope, _ call: PendingCall) {
        backend.perform(request, source: Self.defaultSource) { outcome in
            self.answer(call, outcome)
        }
    }

    /// Answers a call whose outcome came.
    private func answer(_ call: PendingCall, _ outcome: Result<SchedulerReply, ToastError>) {
        // The connection it came on is gone; its caller saw that.
        guard let bus else { return }
        defer { flushLater(bus) }
        switch (call.kind, outcome) {
        case (.close, _):
            // An id that is gone already is not an error worth reporting
            // (its NotificationClosed was sent when it ended).
            _ = reply(call.message) { _ in }
        case (.notify(let keys, _, let owner), .success(let answer)):
            guard let id = Self.busID(of: answer) else {
                _ = fail(call.message, "org.freedesktop.DBus.Error.Failed", "toastd's id does not fit a D-Bus id")
                return
            }
            // A toast a rule dropped ends at once; its end, which follows,
            // forgets these keys again.
            let keysChanged = actionKeys.updateValue(keys, forKey: ToastID(id)) != keys
            let ownerChanged = owners.updateValue(owner, forKey: ToastID(id)) != owner
            if keysChanged || ownerChanged { rememberSoon() }
            _ = reply(call.message) { try $0.append(id) }
        case (.notify(let keys, let fallback?, let owner), .failure):
            // `replaces_id` names no live toast: a new one, as the spec says.
            submit(fallback, PendingCall(message: call.message, kind: .notify(keys: keys, fallback: nil, owner: owner)))
        case (.notify(_, nil, _), .failure(let error)):
            _ = fail(call.message, "org.freedesktop.Notifications.Error.Refused", error.message)
        }
    }

    /// Emits an event's signal: `ActionInvoked` for an action, `NotificationClosed` for an end.
    private func signal(_ event: ToastEvent) {
        guard let bus, let record = event.record, let id = UInt32(exactly: record.id), id != 0 else { return }
        defer { flushLater(bus) }
        if case .action(_, let action) = event.kind {
            let key = actionKeys[record.id]?[action] ?? action
            emit("ActionInvoked") { signal in
                try signal.append(id)
                try signal.append(key)
            }
        }
        if event.isEnd, let reason = NotificationMapping.closeReason(for: event.kind) {
            let hadKeys = actionKeys.removeValue(forKey: record.id) != nil
            let hadOwner = owners.removeValue(forKey: record.id) != nil
            if hadKeys || hadOwner { rememberSoon() }
            emit("NotificationClosed") { signal in
                try signal.append(id)
                try signal.append(reason)
            }
        }
    }

    /// The D-Bus id of the toast a Notify added or updated: toastd's own,
    /// which is never 0 and must fit a `u`.
    static func busID(of answer: SchedulerReply) -> UInt32? {
        switch answer {
        case .added(let record, _, _), .updated(let record), .dropped(let record):
            guard let id = UInt32(exactly: record.id), id != 0 else { return nil }
            return id
        case .ended, .invoked, .cleared, .paused, .modes, .sourceEnded, .ticked:
            return nil
        }
    }

    /// The events that become signals: actions and ends.
    static func signals(_ event: ToastEvent) -> Bool {
        if case .action = event.kind { return true }
        return event.isEnd
    }

    private func emit(_ member: String, _ fill: (BusMessage) throws -> Void) {
        guard let bus, let signal = try? bus.signal(path: Self.path, interface: Self.interface, member: member) else { return }
        guard (try? fill(signal)) != nil else { return }
        try? bus.send(signal)
    }

    // MARK: - Replies

    private func reply(_ call: BusMessage, _ fill: (BusMessage) throws -> Void) -> Bool {
        // A caller that hung up before its reply is no error of ours, and a
        // reply that cannot be built has nobody else to go to.
        if let bus, let reply = try? call.makeReturn(), (try? fill(reply)) != nil { try? bus.send(reply) }
        return true
    }

    private func fail(_ call: BusMessage, _ name: String, _ text: String) -> Bool {
        call.replyError(name: name, message: text)
        return true
    }
}
