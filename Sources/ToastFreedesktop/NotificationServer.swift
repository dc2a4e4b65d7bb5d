import CSystemd
import ToastKit
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// toastd as `org.freedesktop.Notifications` (spec 1.2) on the session bus.
///
/// It runs on a thread of its own, which alone touches the `sd_bus` object
/// (sd-bus objects belong to the thread that uses them), and it never runs
/// on the daemon's event loop: it is a client of toastd like any other,
/// over toastd's own socket. One connection carries the requests (a Notify
/// is an `add`, or an `update` for `replaces_id`), a second one subscribes,
/// and its `action` and end events become `ActionInvoked` and
/// `NotificationClosed`. The thread polls the bus's fd (with sd-bus's own
/// events and timeout) together with that subscription.
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

    let socketPath: String
    let ownership: Ownership
    let version: String
    /// Told of every change of state (from the bridge's thread).
    let onState: @Sendable (State) -> Void
    private var bus: OpaquePointer?
    private var requests: ToastConnection?
    private var events: ToastConnection?
    /// Each live toast's action ids → the D-Bus action keys they stand for.
    private var actionKeys: [Int64: [String: String]] = [:]
    private let stopPipe: (read: Int32, write: Int32)

    public init(socketPath: String, ownership: Ownership, version: String, onState: @escaping @Sendable (State) -> Void) {
        self.socketPath = socketPath
        self.ownership = ownership
        self.version = version
        self.onState = onState
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        stopPipe = (fds[0], fds[1])
    }

    /// Starts the bridge's thread.
    public func start() {
        var thread = pthread_t()
        let server = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let server = Unmanaged<NotificationServer>.fromOpaque(argument!).takeRetainedValue()
            server.run()
            return nil
        }, server)
        pthread_detach(thread)
    }

    /// Asks the thread to release the name and end.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    // MARK: - The thread

    private func run() {
        // A session bus may come up after toastd (socket activation at login):
        // retry with backoff (0.25 s doubling to 5 s) until it answers.
        var backoff: Int32 = 250
        var lastFailure = ""
        while true {
            do {
                guard try connect() else { return }
                break
            } catch {
                if let bus { sd_bus_flush_close_unref(bus) }
                bus = nil
                requests = nil
                events = nil
                // Said once per reason, not once per attempt.
                if "\(error)" != lastFailure {
                    lastFailure = "\(error)"
                    onState(.failed("\(error); retrying"))
                }
                var stop = pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)
                if poll(&stop, 1, backoff) > 0 { return }
                backoff = min(5_000, backoff * 2)
            }
        }
        onState(.owner)
        defer {
            sd_bus_release_name(bus, Self.busName)
            sd_bus_flush_close_unref(bus)
            bus = nil
        }
        while true {
            while sd_bus_process(bus, nil) > 0 {}
            var fds = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: events?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            var deadline: UInt64 = 0
            var timeout: Int32 = -1
            if sd_bus_get_timeout(bus, &deadline) > 0 && deadline != UInt64.max {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
                timeout = deadline > microseconds ? Int32(clamping: (deadline - microseconds + 999) / 1_000) : 0
            }
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR { return }
            if fds[2].revents != 0 { return }
            if fds[1].revents != 0 { relayEvents() }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to the bus and to toastd and asks for the name; false when
    /// another server owns it (toastd then leaves the bus alone).
    private func connect() throws -> Bool {
        var bus: OpaquePointer?
        var result = sd_bus_open_user(&bus)
        guard result >= 0, let bus else { throw Failure(description: "cannot reach the session bus: \(errorText(result))") }
        self.bus = bus
        requests = try ToastConnection(path: socketPath)
        let subscriber = try ToastConnection(path: socketPath)
        _ = try subscriber.request(WireEncoder.request(.subscribe(Request.Subscribe(snapshot: false))), timeout: 10_000)
        events = subscriber
        result = sd_bus_add_object(bus, nil, Self.path, { message, userdata, error in
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
            self.bus = nil
            return false
        }
        guard result >= 0 else { throw Failure(description: "cannot own \(Self.busName): \(errorText(result))") }
        return true
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
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "dbus"
        let (toast, keys) = NotificationMapping.toast(for: notification, source: "dbus:\(sender)")
        var result: JSONValue?
        if notification.replacesID != 0 {
            let update = WireEncoder.updateRequest(id: ToastID(notification.replacesID), patch: NotificationMapping.patch(for: toast))
            if let reply = try? requests?.request(update, timeout: 10_000) { result = try? WireDecoder.reply(reply).get() }
        }
        do {
            if result == nil {
                let reply = try requests!.request(WireEncoder.request(.command(.add(toast))), timeout: 10_000)
                switch WireDecoder.reply(reply) {
                case .success(let added): result = added
                case .failure(let error): return fail(message, "org.freedesktop.Notifications.Error.Refused", error.message)
                }
            }
        } catch {
            return fail(message, "org.freedesktop.DBus.Error.Failed", "toastd did not answer: \(error)")
        }
        guard let id = result?["id"]?.intValue, id > 0, id <= Int64(UInt32.max) else {
            return fail(message, "org.freedesktop.DBus.Error.Failed", "toastd's id does not fit a D-Bus id")
        }
        actionKeys[id] = keys.toKey
        return reply(message) { reply in
            var value = UInt32(id)
            sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "u")), &value)
        }
    }

    private func close(_ message: OpaquePointer) -> Int32 {
        var id: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &id) > 0 else {
            return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", "CloseNotification takes an id (u)")
        }
        // An id that is gone already is not an error worth reporting (its
        // NotificationClosed was sent when it ended).
        _ = try? requests?.request(WireEncoder.request(.command(.remove(.id(ToastID(id))))), timeout: 10_000)
        return reply(message) { _ in }
    }

    // MARK: - Signals

    /// Reads what arrived on the subscription and emits the signals.
    private func relayEvents() {
        guard let events else { return }
        do {
            try events.receive()
        } catch {
            self.events = nil
            onState(.failed("toastd closed the bridge's subscription"))
            stop()
            return
        }
        while let line = events.bufferedLine() {
            if let event = try? JSONValue.parse(line), event["event"] == "shutdown" {
                // toastd is stopping: release the name and end, quietly.
                self.events = nil
                stop()
                return
            }
            guard let event = try? JSONValue.parse(line), let name = event["event"]?.stringValue,
                let id = event["toast"]?["id"]?.intValue, id > 0, id <= Int64(UInt32.max)
            else { continue }
            if name == "action", let action = event["action"]?.stringValue {
                let key = actionKeys[id]?[action] ?? action
                emit("ActionInvoked") { signal in
                    var value = UInt32(id)
                    sd_bus_message_append_basic(signal, CChar(UInt8(ascii: "u")), &value)
                    appendString(signal, key)
                }
            } else if let reason = NotificationMapping.closeReason(event: name, reason: event["reason"]?.stringValue ?? "") {
                actionKeys[id] = nil
                emit("NotificationClosed") { signal in
                    var value = UInt32(id)
                    var why = reason
                    sd_bus_message_append_basic(signal, CChar(UInt8(ascii: "u")), &value)
                    sd_bus_message_append_basic(signal, CChar(UInt8(ascii: "u")), &why)
                }
            }
        }
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

    // MARK: - Reading Notify

    /// Reads `susssasa{sv}i`. Hints it does not use are skipped; a hint of
    /// the wrong type, or an `image-data` whose geometry does not add up, is
    /// refused.
    static func read(_ message: OpaquePointer) throws -> Notification {
        var notification = Notification(summary: "")
        notification.appName = try readString(message)
        notification.replacesID = try readBasic(message, "u", UInt32(0))
        notification.appIcon = try readString(message)
        notification.summary = try readString(message)
        notification.body = try readString(message)
        try enter(message, "a", "s")
        while sd_bus_message_at_end(message, 0) == 0 {
            notification.actions.append(try readString(message))
        }
        sd_bus_message_exit_container(message)
        try enter(message, "a", "{sv}")
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            let key = try readString(message)
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            guard sd_bus_message_peek_type(message, &type, &contents) > 0, let contents else {
                throw Failure(description: "hint \(key) has no value")
            }
            let signature = String(cString: contents)
            try enter(message, "v", signature)
            try readHint(message, key: key, signature: signature, into: &notification.hints)
            sd_bus_message_exit_container(message)
            sd_bus_message_exit_container(message)
        }
        sd_bus_message_exit_container(message)
        notification.expireTimeout = try readBasic(message, "i", Int32(0))
        return notification
    }

    static func readHint(_ message: OpaquePointer, key: String, signature: String, into hints: inout Notification.Hints) throws {
        func wrongType() -> Failure { Failure(description: "hint \(key) has type \(signature)") }
        switch key {
        case "urgency":
            guard signature == "y" else { throw wrongType() }
            hints.urgency = try readBasic(message, "y", UInt8(0))
        case "value":
            switch signature {
            case "i": hints.value = try readBasic(message, "i", Int32(0))
            case "u": hints.value = Int32(clamping: try readBasic(message, "u", UInt32(0)))
            default: throw wrongType()
            }
        case "x-dunst-stack-tag", "x-canonical-private-synchronous", "synchronous", "private-synchronous":
            guard signature == "s" else { throw wrongType() }
            hints.stackTag = try readString(message)
        case "category", "image-path", "image_path":
            guard signature == "s" else { throw wrongType() }
            let value = try readString(message)
            if key == "category" { hints.category = value } else { hints.imagePath = value }
        case "transient", "resident":
            guard signature == "b" else { throw wrongType() }
            let value = try readBasic(message, "b", Int32(0)) != 0
            if key == "transient" { hints.transient = value } else { hints.resident = value }
        case "image-data", "image_data", "icon_data":
            guard signature == "(iiibiiay)" else { throw wrongType() }
            try enter(message, "r", "iiibiiay")
            let width = try readBasic(message, "i", Int32(0))
            let height = try readBasic(message, "i", Int32(0))
            let rowstride = try readBasic(message, "i", Int32(0))
            let alpha = try readBasic(message, "b", Int32(0)) != 0
            let bits = try readBasic(message, "i", Int32(0))
            let channels = try readBasic(message, "i", Int32(0))
            var data: UnsafeRawPointer?
            var size = 0
            guard sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &data, &size) >= 0 else { throw wrongType() }
            sd_bus_message_exit_container(message)
            if let problem = NotificationMapping.validateImage(
                width: width, height: height, rowstride: rowstride, hasAlpha: alpha, bitsPerSample: bits,
                channels: channels, bytes: size
            ) {
                throw Failure(description: problem)
            }
        default:
            sd_bus_message_skip(message, signature)
        }
    }

    static func enter(_ message: OpaquePointer, _ type: Character, _ contents: String) throws {
        guard sd_bus_message_enter_container(message, CChar(type.asciiValue!), contents) > 0 else {
            throw Failure(description: "expected \(type)\(contents) in Notify(susssasa{sv}i)")
        }
    }

    static func readString(_ message: OpaquePointer) throws -> String {
        var pointer: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &pointer) > 0, let pointer else {
            throw Failure(description: "expected a string in Notify(susssasa{sv}i)")
        }
        return String(cString: pointer)
    }

    static func readBasic<T: BitwiseCopyable>(_ message: OpaquePointer, _ type: Character, _ initial: T) throws -> T {
        var value = initial
        guard sd_bus_message_read_basic(message, CChar(type.asciiValue!), &value) > 0 else {
            throw Failure(description: "expected \(type) in Notify(susssasa{sv}i)")
        }
        return value
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Peer">
          <method name="Ping"/>
          <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.Notifications">
          <method name="Notify">
           <arg name="app_name" type="s" direction="in"/>
           <arg name="replaces_id" type="u" direction="in"/>
           <arg name="app_icon" type="s" direction="in"/>
           <arg name="summary" type="s" direction="in"/>
           <arg name="body" type="s" direction="in"/>
           <arg name="actions" type="as" direction="in"/>
           <arg name="hints" type="a{sv}" direction="in"/>
           <arg name="expire_timeout" type="i" direction="in"/>
           <arg name="id" type="u" direction="out"/>
          </method>
          <method name="CloseNotification"><arg name="id" type="u" direction="in"/></method>
          <method name="GetCapabilities"><arg name="capabilities" type="as" direction="out"/></method>
          <method name="GetServerInformation">
           <arg name="name" type="s" direction="out"/>
           <arg name="vendor" type="s" direction="out"/>
           <arg name="version" type="s" direction="out"/>
           <arg name="spec_version" type="s" direction="out"/>
          </method>
          <signal name="NotificationClosed"><arg name="id" type="u"/><arg name="reason" type="u"/></signal>
          <signal name="ActionInvoked"><arg name="id" type="u"/><arg name="action_key" type="s"/></signal>
         </interface>
        </node>
        """
}

private func errorText(_ result: Int32) -> String { String(cString: strerror(-result)) }
