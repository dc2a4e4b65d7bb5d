import CSystemd
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
