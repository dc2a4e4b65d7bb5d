// SPDX-License-Identifier: Apache-2.0
import SDBus
import ToastCore
#if canImport(Glibc)
import Glibc
#endif

/// The D-Bus message reader: a Notify call's arguments, its hints and
/// their types, read from sd-bus into a `Notification`, each malformed
/// part a `Failure` with what was wrong.
extension NotificationServer {
    // MARK: - Reading Notify

    /// Reads `susssasa{sv}i`. Hints it does not use are skipped; a hint of
    /// the wrong type, or an `image-data` whose geometry does not add up,
    /// is left out and named in `problems`. A call cut short, or of another
    /// signature, is refused.
    static func read(_ message: BusMessage) throws -> Notification {
        do {
            return try readNotify(message)
        } catch let error as BusReadError {
            throw Failure(description: "\(error) in Notify(susssasa{sv}i)")
        } catch let error as BusError {
            throw Failure(description: "\(error) in Notify(susssasa{sv}i)")
        }
    }

    private static func readNotify(_ message: BusMessage) throws -> Notification {
        var notification = Notification(summary: "")
        notification.appName = try message.readString()
        notification.replacesID = try message.read(UInt32.self)
        notification.appIcon = try message.readString()
        notification.summary = try message.readString()
        notification.body = try message.readString()
        try message.enter("a", "s")
        while !message.atEnd {
            notification.actions.append(try message.readString())
        }
        message.exitContainer()
        try message.enter("a", "{sv}")
        while try message.enterIfPresent("e", "sv") {
            let key = try message.readString()
            guard let (_, contents) = message.peek(), let signature = contents else {
                throw Failure(description: "hint \(key) has no value")
            }
            try message.enter("v", signature)
            if let problem = try readHint(message, key: key, signature: signature, into: &notification.hints) {
                notification.problems.append(problem)
            }
            message.exitContainer()
            message.exitContainer()
        }
        message.exitContainer()
        notification.expireTimeout = try message.read(Int32.self)
        return notification
    }

    /// Reads one hint's value (inside its variant); what was wrong with it, if anything.
    static func readHint(_ message: BusMessage, key: String, signature: String, into hints: inout Notification.Hints) throws -> String? {
        func wrongType() throws -> String {
            try message.skip(signature)
            return "hint \(key) has type \(signature); left out"
        }
        switch key {
        case "urgency":
            guard signature == "y" else { return try wrongType() }
            hints.urgency = try message.read(UInt8.self)
        case "value":
            switch signature {
            case "i": hints.value = try message.read(Int32.self)
            case "u": hints.value = Int32(clamping: try message.read(UInt32.self))
            default: return try wrongType()
            }
        case "x-dunst-stack-tag", "x-canonical-private-synchronous", "synchronous", "private-synchronous":
            guard signature == "s" else { return try wrongType() }
            hints.stackTag = try message.readString()
        case "category", "desktop-entry", "sound-name", "image-path", "image_path":
            guard signature == "s" else { return try wrongType() }
            let value = try message.readString()
            switch key {
            case "category": hints.category = value
            case "desktop-entry": hints.desktopEntry = value
            case "sound-name": hints.soundName = value
            default: hints.imagePath = value
            }
        case "transient", "resident":
            guard signature == "b" else { return try wrongType() }
            let value = try message.read(Bool.self)
            if key == "transient" { hints.transient = value } else { hints.resident = value }
        case "image-data", "image_data", "icon_data":
            guard signature == "(iiibiiay)" else { return try wrongType() }
            try message.enter("r", "iiibiiay")
            let width = try message.read(Int32.self)
            let height = try message.read(Int32.self)
            let rowstride = try message.read(Int32.self)
            let alpha = try message.read(Bool.self)
            let bits = try message.read(Int32.self)
            let channels = try message.read(Int32.self)
            // Scaled from the message's own buffer: a 4,000×4,000 image is
            // never copied, and its scaling looks at 64×64×16 samples at most.
            let problem = try message.withBytes { bytes -> String? in
                if let problem = NotificationMapping.validateImage(
                    width: width, height: height, rowstride: rowstride, hasAlpha: alpha, bitsPerSample: bits,
                    channels: channels, bytes: bytes.count
                ) {
                    return problem + "; the image is left out"
                }
                // The preferred image wins over the deprecated names.
                if hints.image == nil || key == "image-data" {
                    hints.image = ToastImage.scaled(
                        width: Int(width), height: Int(height), rowstride: Int(rowstride), channels: Int(channels), bytes: bytes
                    )
                }
                return nil
            }
            message.exitContainer()
            return problem
        default:
            try message.skip(signature)
        }
        return nil
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
