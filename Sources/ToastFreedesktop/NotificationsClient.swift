// SPDX-License-Identifier: Apache-2.0
import SDBus

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

    public let bus: Bus

    /// Connects to the bus at `address`, or to the user's session bus.
    public init(address: String? = nil) throws {
        do {
            bus = try address.map { try Bus.connect(address: $0) } ?? Bus.session()
        } catch {
            throw CallError(description: "\(error)")
        }
    }

    /// The server's name, vendor, version and spec version, and its unique bus name.
    public func serverInformation() throws -> (name: String, version: String, spec: String, sender: String?) {
        let reply = try call("GetServerInformation") { _ in }
        let strings = (0..<4).map { _ in (try? reply.readString()) ?? "" }
        return (strings[0], strings[2], strings[3], reply.sender)
    }

    /// The server's capabilities (`body-markup`, `actions`, ...).
    public func capabilities() throws -> [String] {
        let reply = try call("GetCapabilities") { _ in }
        var capabilities: [String] = []
        guard (try? reply.enter("a", "s")) != nil else { return [] }
        while !reply.atEnd, let capability = try? reply.readString() { capabilities.append(capability) }
        return capabilities
    }

    /// Notify; returns the server's id.
    public func notify(_ notification: Notification, image: Image? = nil, timeout microseconds: UInt64 = 10_000_000) throws -> UInt32 {
        let reply = try call("Notify", timeout: microseconds) { try Self.append(notification, image: image, to: $0) }
        return (try? reply.read(UInt32.self)) ?? 0
    }

    public func close(_ id: UInt32) throws {
        _ = try call("CloseNotification") { try $0.append(id) }
    }

    /// Sends a Notify and closes the connection without waiting for the reply.
    public func notifyAndHangUp(_ notification: Notification) {
        guard let message = try? newCall("Notify"), (try? Self.append(notification, image: nil, to: message)) != nil else { return }
        try? bus.send(message)
        bus.flush()
        bus.close()
    }

    // MARK: - Calls

    private func newCall(_ member: String) throws -> BusMessage {
        try bus.methodCall(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: member
        )
    }

    private func call(_ member: String, timeout: UInt64 = 10_000_000, _ fill: (BusMessage) throws -> Void) throws -> BusMessage {
        do {
            let message = try newCall(member)
            try fill(message)
            return try bus.call(message, timeout: timeout)
        } catch let error as BusCallError {
            throw CallError(description: error.message)
        } catch {
            throw CallError(description: "cannot build \(member): \(error)")
        }
    }

    /// Writes Notify's arguments, `susssasa{sv}i`.
    static func append(_ notification: Notification, image: Image?, to message: BusMessage) throws {
        try message.append(notification.appName)
        try message.append(notification.replacesID)
        try message.append(notification.appIcon)
        try message.append(notification.summary)
        try message.append(notification.body)
        try message.container("a", "s") {
            for value in notification.actions { try message.append(value) }
        }
        try message.container("a", "{sv}") {
            let hints = notification.hints
            if let urgency = hints.urgency { try message.appendEntry("urgency", "y") { try message.append(urgency) } }
            if let value = hints.value { try message.appendEntry("value", "i") { try message.append(value) } }
            if hints.transient { try message.appendEntry("transient", "b") { try message.append(true) } }
            if hints.resident { try message.appendEntry("resident", "b") { try message.append(true) } }
            if let tag = hints.stackTag { try message.appendEntry("x-dunst-stack-tag", "s") { try message.append(tag) } }
            if let category = hints.category { try message.appendEntry("category", "s") { try message.append(category) } }
            if let entry = hints.desktopEntry { try message.appendEntry("desktop-entry", "s") { try message.append(entry) } }
            if let sound = hints.soundName { try message.appendEntry("sound-name", "s") { try message.append(sound) } }
            if let path = hints.imagePath { try message.appendEntry("image-path", "s") { try message.append(path) } }
            if image == nil, case .pixels(let width, let height, let rgba)? = hints.image {
                try message.appendEntry("image-data", "(iiibiiay)") {
                    try message.container("r", "iiibiiay") {
                        for value in [Int32(width), Int32(height), Int32(width * 4)] { try message.append(value) }
                        try message.append(true)
                        try message.append(Int32(8))
                        try message.append(Int32(4))
                        try rgba.withUnsafeBytes { try message.append(bytes: $0) }
                    }
                }
            }
            if let image {
                try message.appendEntry("image-data", "(iiibiiay)") {
                    try message.container("r", "iiibiiay") {
                        for value in [image.width, image.height, image.rowstride] { try message.append(value) }
                        try message.append(image.hasAlpha)
                        try message.append(image.bitsPerSample)
                        try message.append(image.channels)
                        let pixels = [UInt8](repeating: 0x7F, count: image.bytes)
                        try pixels.withUnsafeBytes { try message.append(bytes: $0) }
                    }
                }
            }
        }
        try message.append(notification.expireTimeout)
    }
}
