import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// A client of `org.freedesktop.Notifications` over sd-bus, with the calls
/// written through sd-bus's non-variadic API: toast-notify shows toasts on
/// the desktop's server with it, and the tests and benchmarks drive a
/// server with it (including calls no command line can make).
///
/// Not thread-safe: one thread per client, as sd-bus wants.
public final class NotificationsClient {
    public struct CallError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `image-data`'s fields, as sent (they may be wrong on purpose).
    public struct Image: Sendable {
        public var width: Int32, height: Int32, rowstride: Int32, hasAlpha: Bool, bitsPerSample: Int32, channels: Int32
        public var bytes: Int

        public init(width: Int32, height: Int32, rowstride: Int32, hasAlpha: Bool, bitsPerSample: Int32 = 8, channels: Int32, bytes: Int) {
            self.width = width
            self.height = height
            self.rowstride = rowstride
            self.hasAlpha = hasAlpha
            self.bitsPerSample = bitsPerSample
            self.channels = channels
            self.bytes = bytes
        }
    }

    public let bus: OpaquePointer

    /// Connects to the bus at `address`, or to the user's session bus.
    public init(address: String? = nil) throws {
        var bus: OpaquePointer?
        var result: Int32
        if let address {
            result = sd_bus_new(&bus)
            if result >= 0 {
                sd_bus_set_address(bus, address)
                sd_bus_set_bus_client(bus, 1)
                result = sd_bus_start(bus)
            }
        } else {
            result = sd_bus_open_user(&bus)
        }
        guard result >= 0, let bus else {
            throw CallError(description: "cannot reach the session bus: \(String(cString: strerror(-result)))")
        }
        self.bus = bus
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// The server's name, vendor, version and spec version, and its unique bus name.
    public func serverInformation() throws -> (name: String, version: String, spec: String, sender: String?) {
        let reply = try call("GetServerInformation") { _ in }
        defer { sd_bus_message_unref(reply) }
        var strings: [String] = []
        for _ in 0..<4 {
            var value: UnsafePointer<CChar>?
            sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &value)
            strings.append(value.map { String(cString: $0) } ?? "")
        }
        return (strings[0], strings[2], strings[3], sd_bus_message_get_sender(reply).map { String(cString: $0) })
    }

    /// Notify; returns the server's id.
    public func notify(_ notification: Notification, image: Image? = nil, timeout microseconds: UInt64 = 10_000_000) throws -> UInt32 {
        let reply = try call("Notify", timeout: microseconds) { Self.append(notification, image: image, to: $0) }
        defer { sd_bus_message_unref(reply) }
        var id: UInt32 = 0
        sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &id)
        return id
    }

    public func close(_ id: UInt32) throws {
        sd_bus_message_unref(try call("CloseNotification") { appendBasic($0, "u", id) })
    }

    /// Sends a Notify and closes the connection without waiting for the reply.
    public func notifyAndHangUp(_ notification: Notification) {
        guard let message = newCall("Notify") else { return }
        defer { sd_bus_message_unref(message) }
        Self.append(notification, image: nil, to: message)
        sd_bus_send(bus, message, nil)
        sd_bus_flush(bus)
        sd_bus_close(bus)
    }

    // MARK: - Calls

    private func newCall(_ member: String) -> OpaquePointer? {
        var message: OpaquePointer?
        sd_bus_message_new_method_call(
            bus, &message, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", member
        )
        return message
    }

    private func call(_ member: String, timeout: UInt64 = 10_000_000, _ fill: (OpaquePointer) -> Void) throws -> OpaquePointer? {
        guard let message = newCall(member) else { throw CallError(description: "cannot build \(member)") }
        defer { sd_bus_message_unref(message) }
        fill(message)
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus, message, timeout, &error, &reply)
        guard result >= 0 else {
            throw CallError(description: error.message.map { String(cString: $0) } ?? String(cString: strerror(-result)))
        }
        return reply
    }

    /// Writes Notify's arguments, `susssasa{sv}i`.
    static func append(_ notification: Notification, image: Image?, to message: OpaquePointer) {
        appendString(message, notification.appName)
        appendBasic(message, "u", notification.replacesID)
        appendString(message, notification.appIcon)
        appendString(message, notification.summary)
        appendString(message, notification.body)
        sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s")
        for value in notification.actions { appendString(message, value) }
        sd_bus_message_close_container(message)
        sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
        let hints = notification.hints
        if let urgency = hints.urgency { appendHint(message, "urgency", "y", urgency) }
        if let value = hints.value { appendHint(message, "value", "i", value) }
        if hints.transient { appendHint(message, "transient", "b", Int32(1)) }
        if hints.resident { appendHint(message, "resident", "b", Int32(1)) }
        if let tag = hints.stackTag {
            openHint(message, "x-dunst-stack-tag", "s")
            appendString(message, tag)
            closeHint(message)
        }
        if let image {
            openHint(message, "image-data", "(iiibiiay)")
            sd_bus_message_open_container(message, CChar(UInt8(ascii: "r")), "iiibiiay")
            for value in [image.width, image.height, image.rowstride] { appendBasic(message, "i", value) }
            appendBasic(message, "b", Int32(image.hasAlpha ? 1 : 0))
            appendBasic(message, "i", image.bitsPerSample)
            appendBasic(message, "i", image.channels)
            let pixels = [UInt8](repeating: 0x7F, count: image.bytes)
            pixels.withUnsafeBytes { _ = sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) }
            sd_bus_message_close_container(message)
            closeHint(message)
        }
        sd_bus_message_close_container(message)
        appendBasic(message, "i", notification.expireTimeout)
    }
}

func appendString(_ message: OpaquePointer, _ value: String) {
    value.withCString { _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
}

func appendBasic<T: BitwiseCopyable>(_ message: OpaquePointer, _ type: Character, _ value: T) {
    var value = value
    sd_bus_message_append_basic(message, CChar(type.asciiValue!), &value)
}

private func openHint(_ message: OpaquePointer, _ key: String, _ signature: String) {
    sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv")
    appendString(message, key)
    sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), signature)
}

private func closeHint(_ message: OpaquePointer) {
    sd_bus_message_close_container(message)
    sd_bus_message_close_container(message)
}

private func appendHint<T: BitwiseCopyable>(_ message: OpaquePointer, _ key: String, _ type: Character, _ value: T) {
    openHint(message, key, String(type))
    appendBasic(message, type, value)
    closeHint(message)
}
