// SPDX-License-Identifier: Apache-2.0
import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// A connection to a D-Bus bus through sd-bus: the only place, with
/// `BusMessage`, where toastd calls sd-bus (the Systemd module wraps the
/// rest of libsystemd). An sd-bus connection belongs to the thread that
/// uses it; a caller that hands it between threads does so once, and
/// never uses it from two at a time.
///
/// It is driven from outside: `fd`, `events` and `deadline` say what to
/// wait for, and `process()` does what is ready, running the handlers.
public final class Bus: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The handlers registered on it, kept as long as it lives.
    private var handlers: [Handler] = []

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Flushes what is queued and closes.
    deinit { sd_bus_flush_close_unref(pointer) }

    /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    public static func session() throws -> Bus {
        var opened: OpaquePointer?
        try check(sd_bus_open_user(&opened), "cannot reach the session bus")
        return Bus(pointer: opened!)
    }

    /// A bus at an address ("unix:path=…"), as a client that says hello.
    public static func connect(address: String) throws -> Bus {
        var opened: OpaquePointer?
        try check(sd_bus_new(&opened), "sd_bus_new")
        let bus = Bus(pointer: opened!)
        try check(sd_bus_set_address(bus.pointer, address), "cannot use the bus address \(address)")
        try check(sd_bus_set_bus_client(bus.pointer, 1), "sd_bus_set_bus_client")
        try check(sd_bus_start(bus.pointer), "cannot reach the bus at \(address)")
        return bus
    }

    // MARK: - Driving it

    public var fd: Int32 { sd_bus_get_fd(pointer) }

    /// The poll(2) events it waits for now (POLLIN, and POLLOUT while it has
    /// unwritten messages); negative errno when the connection is gone.
    public var events: Int32 { sd_bus_get_events(pointer) }

    /// When sd-bus wants to run next (CLOCK_MONOTONIC, µs), or nil.
    public var deadline: UInt64? {
        var deadline = UInt64.max
        guard sd_bus_get_timeout(pointer, &deadline) >= 0, deadline != .max else { return nil }
        return deadline
    }

    public var isOpen: Bool { sd_bus_is_open(pointer) > 0 }

    /// Whether it has messages it could not write yet.
    public var wantsToWrite: Bool { events >= 0 && events & Int32(POLLOUT) != 0 }

    /// Does everything that is ready (reads, dispatches to the handlers,
    /// writes); throws when the connection is lost.
    public func processAll() throws {
        var result: Int32
        repeat { result = sd_bus_process(pointer, nil) } while result > 0
        try check(result, "the bus connection")
    }

    public func flush() { sd_bus_flush(pointer) }

    public func close() { sd_bus_close(pointer) }

    // MARK: - Names and objects

    public enum NameRequest: Equatable, Sendable {
        case owned
        /// Another connection owns it and does not let it go.
        case taken
    }

    /// Asks for a well-known name (blocking: a round trip to the bus).
    public func requestName(_ name: String, replaceExisting: Bool = false) throws -> NameRequest {
        let result = sd_bus_request_name(pointer, name, replaceExisting ? UInt64(SD_BUS_NAME_REPLACE_EXISTING) : 0)
        if result == -EEXIST { return .taken }
        try check(result, "cannot own \(name)")
        return .owned
    }

    /// Gives a name back without waiting for the answer.
    public func releaseName(_ name: String) {
        sd_bus_release_name_async(pointer, nil, name, nil, nil)
    }

    /// Serves an object path: `handler` gets each method call to it and
    /// returns true when it answered.
    public func serve(path: String, _ handler: @escaping (BusMessage) -> Bool) throws {
        let box = Handler(handler)
        try check(
            sd_bus_add_object(pointer, nil, path, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                let handler = Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue()
                return handler.run(BusMessage(borrowing: message)) ? 1 : 0
            }, Unmanaged.passUnretained(box).toOpaque()),
            "cannot serve \(path)"
        )
        handlers.append(box)
    }

    /// Calls `handler` with every signal that matches (nil: any).
    public func onSignal(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        _ handler: @escaping (BusMessage) -> Void
    ) throws {
        let box = Handler { handler($0); return false }
        try check(
            sd_bus_match_signal(pointer, nil, sender, path, interface, member, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                _ = Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue().run(BusMessage(borrowing: message))
                return 0
            }, Unmanaged.passUnretained(box).toOpaque()),
            "cannot match the signal \(member ?? "*")"
        )
        handlers.append(box)
    }

    // MARK: - Messages

    public func methodCall(destination: String, path: String, interface: String, member: String) throws -> BusMessage {
        var message: OpaquePointer?
        try check(sd_bus_message_new_method_call(pointer, &message, destination, path, interface, member), "new call \(member)")
        return BusMessage(owning: message!)
    }

    public func signal(path: String, interface: String, member: String) throws -> BusMessage {
        var message: OpaquePointer?
        try check(sd_bus_message_new_signal(pointer, &message, path, interface, member), "new signal \(member)")
        return BusMessage(owning: message!)
    }

    /// Queues a message (a reply, a signal, a call whose answer nobody waits for).
    public func send(_ message: BusMessage) throws {
        try check(sd_bus_send(pointer, message.pointer, nil), "send")
    }

    /// Calls a method and waits up to `timeout` µs for its reply
    /// (blocking: never on a loop that serves others).
    public func call(_ message: BusMessage, timeout: UInt64 = 10_000_000) throws -> BusMessage {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(pointer, message.pointer, timeout, &error, &reply)
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) }
            let text = error.message.map { String(cString: $0) }
            throw BusCallError(name: name, message: text ?? String(cString: strerror(-result)), code: result)
        }
        return BusMessage(owning: reply)
    }
}

/// A method call answered with an error, or not answered.
public struct BusCallError: Error, Equatable, CustomStringConvertible {
    /// The D-Bus error name ("org.freedesktop.DBus.Error.ServiceUnknown").
    public let name: String?
    public let message: String
    public let code: Int32

    public var description: String { name.map { "\($0): \(message)" } ?? message }
}

private final class Handler {
    let run: (BusMessage) -> Bool

    init(_ run: @escaping (BusMessage) -> Bool) {
        self.run = run
    }
}
