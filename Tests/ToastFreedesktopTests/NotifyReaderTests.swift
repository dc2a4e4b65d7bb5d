// SPDX-License-Identifier: Apache-2.0
import SDBus
import Testing

@testable import ToastFreedesktop

#if canImport(Glibc)
import Glibc
#endif

/// The Notify reader in process: a call written by sd-bus, sealed as sending
/// would, and read back by `NotificationServer.read`, no server running.
@Suite("Reading Notify(susssasa{sv}i) in process", .serialized)
struct NotifyReaderTests {
    static let hasDaemon = access("/usr/bin/dbus-daemon", X_OK) == 0

    /// A Notify call with `notification` written by the client's writer, sealed.
    static func call(
        _ notification: Notification, image: NotificationsClient.Image? = nil, on bus: Bus
    ) throws -> BusMessage {
        let message = try bus.methodCall(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify"
        )
        try NotificationsClient.append(notification, image: image, to: message)
        try message.seal()
        return message
    }

    /// A Notify call whose hints are written by `hints`.
    static func call(hints: (BusMessage) throws -> Void, on bus: Bus) throws -> BusMessage {
        let message = try bus.methodCall(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify"
        )
        try message.append("app")
        try message.append(UInt32(0))
        try message.append("")
        try message.append("summary")
        try message.append("body")
        try message.container("a", "s") {}
        try message.container("a", "{sv}") { try hints(message) }
        try message.append(Int32(-1))
        try message.seal()
        return message
    }

    @Test("every field and hint it knows is read as written", .enabled(if: hasDaemon))
    func roundTrip() throws {
        let daemon = try PrivateBus()
        let bus = try Bus.connect(address: daemon.address)
        var sent = Notification(summary: "Build finished")
        sent.appName = "make"
        sent.replacesID = 41
        sent.appIcon = "dialog-information"
        sent.body = "I <3 toasts; load < 50%"
        sent.actions = ["default", "", "retry", "Retry"]
        sent.expireTimeout = 4_500
        sent.hints.urgency = 2
        sent.hints.value = 40
        sent.hints.stackTag = "volume"
        sent.hints.transient = true
        sent.hints.resident = true
        let read = try NotificationServer.read(Self.call(sent, image: .init(width: 2, height: 2, rowstride: 8, hasAlpha: true, channels: 4, bytes: 16), on: bus))
        var expected = sent
        expected.hints.image = .pixels(width: 2, height: 2, rgba: [UInt8](repeating: 0x7F, count: 16))
        #expect(read == expected)
    }

    @Test("hints it does not use are skipped, of any type", .enabled(if: hasDaemon))
    func unknownHintsSkipped() throws {
        let daemon = try PrivateBus()
        let bus = try Bus.connect(address: daemon.address)
        let message = try Self.call(hints: { message in
            try message.appendEntry("x-vendor-nested", "a{sv}") {
                try message.container("a", "{sv}") { try message.appendEntry("deep", "s") { try message.append("x") } }
            }
            try message.appendEntry("category", "s") { try message.append("email.arrived") }
            try message.appendEntry("sound-file", "s") { try message.append("/x.oga") }
        }, on: bus)
        let read = try NotificationServer.read(message)
        #expect(read.hints.category == "email.arrived")
        #expect(read.summary == "summary")
        #expect(read.expireTimeout == -1)
    }

    @Test("a hint of the wrong type or a bad image is left out and named; a call cut short is refused", .enabled(if: hasDaemon))
    func refusals() throws {
        let daemon = try PrivateBus()
        let bus = try Bus.connect(address: daemon.address)
        let wrongType = try Self.call(hints: { message in
            try message.appendEntry("urgency", "s") { try message.append("critical") }
            try message.appendEntry("image-data", "(iiibiiay)") {
                try message.container("r", "iiibiiay") {
                    for value: Int32 in [64, 64, 4] { try message.append(value) }
                    try message.append(true)
                    try message.append(Int32(8))
                    try message.append(Int32(4))
                    try [UInt8](repeating: 1, count: 16).withUnsafeBytes { try message.append(bytes: $0) }
                }
            }
            try message.appendEntry("category", "s") { try message.append("im.received") }
        }, on: bus)
        let kept = try NotificationServer.read(wrongType)
        #expect(kept.summary == "summary")
        #expect(kept.hints.urgency == nil)
        #expect(kept.hints.image == nil)
        #expect(kept.hints.category == "im.received", "the hints after a bad one are still read")
        #expect(kept.problems.count == 2)
        #expect(kept.problems.first == "hint urgency has type s; left out")

        let short = try bus.methodCall(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify"
        )
        try short.append("app")
        try short.seal()
        #expect(throws: NotificationServer.Failure(description: "expected u in Notify(susssasa{sv}i)")) { try NotificationServer.read(short) }
    }
}
