import CSystemd
import ToastCore

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
/// Toasts from the bus are toasts like any other: scheduled, deduped,
/// persisted and seen by every viewer; D-Bus ids are toastd's ids.
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
            case notify(keys: [String: String], fallback: RequestEnvelope?)
            case close
        }

        let message: OpaquePointer
        let kind: Kind
    }

    /// Where a toast from the bus comes from when its call names no app.
    static let defaultSource = "dbus"

    let backend: any NotificationBackend
    let ownership: Ownership
    let version: String
    /// Told of every change of state (from either thread).
    let onState: @Sendable (State) -> Void
    private let watcher = BusWatcher()

    // On the executor only, once the watcher has handed the connection over.
    private var bus: OpaquePointer?
    /// Each live toast's action ids → the D-Bus action keys they stand for.
    private var actionKeys: [ToastID: [String: String]] = [:]
    private var watchingEvents = false

    public init(
        backend: any NotificationBackend, ownership: Ownership, version: String,
        onState: @escaping @Sendable (State) -> Void
    ) {
        self.backend = backend
        self.ownership = ownership
        self.version = version
        self.onState = onState
    }

    /// Starts the watcher's thread, which connects.
    public func start() {
        var thread = pthread_t()
        let server = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let server = Unmanaged<NotificationServer>.fromOpaque(argument!).takeRetainedValue()
            server.watch()
            return nil
        }, server)
        pthread_detach(thread)
    }

    /// Releases the name and leaves the bus.
    public func stop() {
        watcher.stop()
    }

    // MARK: - The watcher's thread

    private func watch() {
        while let bus = connect() {
            let fd = sd_bus_get_fd(bus)
            guard watcher.watch(fd, events: sd_bus_get_events(bus)) else {
                onState(.failed("cannot watch the bus connection: \(String(cString: strerror(errno)))"))
                sd_bus_flush_close_unref(bus)
                return
            }
            let handOver = HandOver(bus: bus)
            backend.execute { self.attach(handOver.bus) }
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

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A connection on its way from the watcher's thread, which made it, to
    /// the executor, which alone uses it from then on.
    private struct HandOver: @unchecked Sendable {
        let bus: OpaquePointer
    }

    /// A connection that owns the name, or nil when another server owns it
    /// (toastd then leaves the bus alone) or the bridge was stopped. A
    /// session bus may come up after toastd (socket activation at login), or
    /// restart under it: this retries with backoff (0.25 s doubling to 5 s)
    /// until it answers.
    private func connect() -> OpaquePointer? {
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
    private func openOwningName() throws -> OpaquePointer? {
        var opened: OpaquePointer?
        let result = sd_bus_open_user(&opened)
        guard result >= 0, let bus = opened else { throw Failure(description: "cannot reach the session bus: \(errorText(result))") }
        do {
            var result = sd_bus_add_object(bus, nil, Self.path, { message, userdata, error in
                guard let message, let userdata else { return 0 }
                return Unmanaged<NotificationServer>.fromOpaque(userdata).takeUnretainedValue().handle(message)
            }, Unmanaged.passUnretained(self).toOpaque())
            guard result >= 0 else { throw Failure(description: "cannot serve \(Self.path): \(errorText(result))") }
            let flags: UInt64 = ownership == .replace ? UInt64(SD_BUS_NAME_REPLACE_EXISTING) : 0
            result = sd_bus_request_name(bus, Self.busName, flags)
            if result == -EEXIST {
                let hint = ownership == .ifFree ? " (toastd --freedesktop=replace takes it over)" : " and does not let it go"
                onState(.notOwner("another notification server owns it" + hint))
                sd_bus_flush_close_unref(bus)
                return nil
            }
            guard result >= 0 else { throw Failure(description: "cannot own \(Self.busName): \(errorText(result))") }
            return bus
        } catch {
            sd_bus_flush_close_unref(bus)
            throw error
        }
    }

    // MARK: - On the executor

    private func attach(_ bus: OpaquePointer) {
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
        var result: Int32
        repeat { result = sd_bus_process(bus, nil) } while result > 0
        guard result >= 0 else { return lose(result) }
        rearm(bus)
    }

    private func rearm(_ bus: OpaquePointer) {
        let events = sd_bus_get_events(bus)
        guard events >= 0 else { return lose(events) }
        watcher.rearm(sd_bus_get_fd(bus), events: events)
        var deadline = UInt64.max
        watcher.setDeadline(sd_bus_get_timeout(bus, &deadline) >= 0 ? deadline : .max)
    }

    /// After a send outside `pump`: if sd-bus could not write it all, the
    /// watcher must wait for room too.
    private func flushLater(_ bus: OpaquePointer) {
        if sd_bus_get_events(bus) & Int32(POLLOUT) != 0 { rearm(bus) }
    }

    /// The bus went away: close it and let the watcher connect again.
    private func lose(_ result: Int32) {
        guard let bus else { return }
        self.bus = nil
        sd_bus_close_unref(bus)
        onState(.failed("lost the session bus (\(errorText(result))); reconnecting"))
        watcher.lose()
    }

    private func detach() {
        guard let bus else { return }
        self.bus = nil
        sd_bus_release_name_async(bus, nil, Self.busName, nil, nil)
        // Writes what is queued (the release, the last replies): the bus
        // reads it at once, and toastd is stopping.
        sd_bus_flush_close_unref(bus)
    }

    // MARK: - Methods

    /// Dispatches one method call on our object; 1 when it was answered.
    private func handle(_ message: OpaquePointer) -> Int32 {
        func call(_ member: String) -> Bool { sd_bus_message_is_method_call(message, Self.interface, member) > 0 }
        if call("Notify") { return notify(message) }
        if call("CloseNotification") { return close(message) }
        if call("GetCapabilities") {
            return reply(message) { reply in
                sd_bus_message_open_container(reply, CChar(UInt8(ascii: "a")), "s")
                for capability in NotificationMapping.capabilities { appendString(reply, capability) }
                sd_bus_message_close_container(reply)
            }
        }
        if call("GetServerInformation") {
            return reply(message) { reply in
                for value in ["toastd", "toastd", version, "1.2"] { appendString(reply, value) }
            }
        }
        if sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Introspectable", "Introspect") > 0 {
            return reply(message) { appendString($0, Self.introspection) }
        }
        return 0
    }

    private func notify(_ message: OpaquePointer) -> Int32 {
        var notification: Notification
        do {
            notification = try Self.read(message)
        } catch {
            return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", "\(error)")
        }
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? Self.defaultSource
        let (toast, keys) = NotificationMapping.toast(for: notification, source: "dbus:\(sender)")
        // The bridge never chooses an alignment or dismissibility: a role's
        // defaults from the configuration fill them, as for any client that
        // leaves them out.
        let add = RequestEnvelope(request: .command(.add(toast)), defaulted: [.alignment, .dismissible])
        if notification.replacesID != 0 {
            let update = RequestEnvelope(
                request: .command(.update(.id(ToastID(notification.replacesID)), NotificationMapping.patch(for: toast)))
            )
            submit(update, PendingCall(message: sd_bus_message_ref(message), kind: .notify(keys: keys.toKey, fallback: add)))
        } else {
            submit(add, PendingCall(message: sd_bus_message_ref(message), kind: .notify(keys: keys.toKey, fallback: nil)))
        }
        return 1
    }

    private func close(_ message: OpaquePointer) -> Int32 {
        var id: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &id) > 0 else {
            return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", "CloseNotification takes an id (u)")
        }
        submit(
            RequestEnvelope(request: .command(.remove(.id(ToastID(id))))),
            PendingCall(message: sd_bus_message_ref(message), kind: .close)
        )
        return 1
    }

    /// Hands a request to toastd; its outcome comes back on the executor.
    private func submit(_ request: RequestEnvelope, _ call: PendingCall) {
        backend.perform(request, source: Self.defaultSource) { outcome in
            self.answer(call, outcome)
        }
    }

    /// Answers a call whose outcome came.
    private func answer(_ call: PendingCall, _ outcome: Result<SchedulerReply, ToastError>) {
        defer { sd_bus_message_unref(call.message) }
        // The connection it came on is gone; its caller saw that.
        guard let bus else { return }
        defer { flushLater(bus) }
        switch (call.kind, outcome) {
        case (.close, _):
            // An id that is gone already is not an error worth reporting
            // (its NotificationClosed was sent when it ended).
            _ = reply(call.message) { _ in }
        case (.notify(let keys, _), .success(let answer)):
            guard let id = Self.busID(of: answer) else {
                _ = fail(call.message, "org.freedesktop.DBus.Error.Failed", "toastd's id does not fit a D-Bus id")
                return
            }
            // A toast a rule dropped ends at once; its end, which follows,
            // forgets these keys again.
            actionKeys[ToastID(id)] = keys
            _ = reply(call.message) { reply in
                var value = id
                sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "u")), &value)
            }
        case (.notify(let keys, let fallback?), .failure):
            // `replaces_id` names no live toast: a new one, as the spec says.
            submit(fallback, PendingCall(message: sd_bus_message_ref(call.message), kind: .notify(keys: keys, fallback: nil)))
        case (.notify(_, nil), .failure(let error)):
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
                var value = id
                sd_bus_message_append_basic(signal, CChar(UInt8(ascii: "u")), &value)
                appendString(signal, key)
            }
        }
        if event.isEnd, let reason = NotificationMapping.closeReason(for: event.kind) {
            actionKeys[record.id] = nil
            emit("NotificationClosed") { signal in
                var value = id
                var why = reason
                sd_bus_message_append_basic(signal, CChar(UInt8(ascii: "u")), &value)
                sd_bus_message_append_basic(signal, CChar(UInt8(ascii: "u")), &why)
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

    private func emit(_ member: String, _ fill: (OpaquePointer) -> Void) {
        var signal: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &signal, Self.path, Self.interface, member) >= 0, let signal else { return }
        fill(signal)
        sd_bus_send(bus, signal, nil)
        sd_bus_message_unref(signal)
    }

    // MARK: - Replies

    private func reply(_ call: OpaquePointer, _ fill: (OpaquePointer) -> Void) -> Int32 {
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else { return -ENOMEM }
        fill(reply)
        let sent = sd_bus_send(nil, reply, nil)
        sd_bus_message_unref(reply)
        // A caller that hung up before its reply is no error of ours.
        return sent < 0 && sent != -ECONNRESET && sent != -ENOTCONN ? sent : 1
    }

    private func fail(_ call: OpaquePointer, _ name: String, _ text: String) -> Int32 {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        sd_bus_error_set(&error, name, text)
        sd_bus_reply_method_error(call, &error)
        sd_bus_error_free(&error)
        return 1
    }

}

private func errorText(_ result: Int32) -> String { String(cString: strerror(-result)) }
