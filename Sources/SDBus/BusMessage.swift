// SPDX-License-Identifier: Apache-2.0
import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus message, read and written through sd-bus. It holds one
/// reference, dropped when it goes; like its bus, it belongs to the thread
/// that uses the bus.
public final class BusMessage: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes over a reference the caller owned.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference of its own to a message sd-bus lends a handler.
    init(borrowing pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)
    }

    deinit { sd_bus_message_unref(pointer) }

    // MARK: - What it is

    /// The unique name of the connection that sent it (":1.42").
    public var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }
    public var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }

    public func isMethodCall(interface: String, member: String) -> Bool {
        sd_bus_message_is_method_call(pointer, interface, member) > 0
    }

    public func isSignal(interface: String, member: String) -> Bool {
        sd_bus_message_is_signal(pointer, interface, member) > 0
    }

    /// Closes a message built here, as sending would, so it can be read
    /// back from its start (tests build a call and read it in process).
    public func seal(cookie: UInt64 = 1) throws {
        try check(sd_bus_message_seal(pointer, cookie, 0), "seal")
        try check(sd_bus_message_rewind(pointer, 1), "rewind")
    }

    // MARK: - Reading

    /// Reads a string, an object path or a signature.
    public func readString() throws -> String {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "s")), &value) > 0, let value else {
            throw BusReadError(expected: "s")
        }
        return String(cString: value)
    }

    public func read(_: UInt32.Type) throws -> UInt32 { try readBasic("u", UInt32(0)) }
    public func read(_: Int32.Type) throws -> Int32 { try readBasic("i", Int32(0)) }
    public func read(_: UInt8.Type) throws -> UInt8 { try readBasic("y", UInt8(0)) }
    public func read(_: Bool.Type) throws -> Bool { try readBasic("b", Int32(0)) != 0 }

    private func readBasic<T: BitwiseCopyable>(_ type: Character, _ initial: T) throws -> T {
        var value = initial
        guard sd_bus_message_read_basic(pointer, CChar(type.asciiValue!), &value) > 0 else {
            throw BusReadError(expected: String(type))
        }
        return value
    }

    /// Reads an array of bytes (`ay`), copied out of the message.
    public func readBytes() throws -> [UInt8] {
        var data: UnsafeRawPointer?
        var size = 0
        guard sd_bus_message_read_array(pointer, CChar(UInt8(ascii: "y")), &data, &size) >= 0 else {
            throw BusReadError(expected: "ay")
        }
        guard let data, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Reads an array of bytes (`ay`) in place: `body` sees the message's
    /// own buffer, valid only during the call (no copy of a large image).
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        var data: UnsafeRawPointer?
        var size = 0
        guard sd_bus_message_read_array(pointer, CChar(UInt8(ascii: "y")), &data, &size) >= 0 else {
            throw BusReadError(expected: "ay")
        }
        return try body(UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size))
    }

    /// Enters a container: `a` with its element signature, `r` a struct,
    /// `v` a variant with its contents' signature, `e` a dict entry.
    public func enter(_ type: Character, _ contents: String) throws {
        guard try enterIfPresent(type, contents) else { throw BusReadError(expected: "\(type)\(contents)") }
    }

    /// Enters the next container if there is one (false at an array's end).
    public func enterIfPresent(_ type: Character, _ contents: String) throws -> Bool {
        let result = sd_bus_message_enter_container(pointer, CChar(type.asciiValue!), contents)
        guard result >= 0 else { throw BusReadError(expected: "\(type)\(contents)") }
        return result > 0
    }

    public func exitContainer() {
        sd_bus_message_exit_container(pointer)
    }

    /// Whether the current container (or the message) has nothing left.
    public var atEnd: Bool { sd_bus_message_at_end(pointer, 0) != 0 }

    /// The type of what comes next and, for a container, its contents' signature.
    public func peek() -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(pointer, &type, &contents) > 0 else { return nil }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    /// Skips what comes next, of this signature.
    public func skip(_ signature: String) throws {
        try check(sd_bus_message_skip(pointer, signature), "skip \(signature)")
    }

    // MARK: - Writing

    public func append(_ value: String) throws {
        _ = try value.withCString { try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "s")), $0), "append s") }
    }

    public func append(_ value: UInt32) throws { try appendBasic("u", value) }
    public func append(_ value: Int32) throws { try appendBasic("i", value) }
    public func append(_ value: UInt8) throws { try appendBasic("y", value) }
    public func append(_ value: Bool) throws { try appendBasic("b", Int32(value ? 1 : 0)) }

    private func appendBasic<T: BitwiseCopyable>(_ type: Character, _ value: T) throws {
        var value = value
        try check(sd_bus_message_append_basic(pointer, CChar(type.asciiValue!), &value), "append \(type)")
    }

    /// Appends an array of bytes (`ay`).
    public func append(bytes: UnsafeRawBufferPointer) throws {
        try check(sd_bus_message_append_array(pointer, CChar(UInt8(ascii: "y")), bytes.baseAddress, bytes.count), "append ay")
    }

    /// Writes a container: `a`, `r`, `v` or `e` with its contents' signature,
    /// its contents written by `body`.
    public func container(_ type: Character, _ contents: String, _ body: () throws -> Void) throws {
        try check(sd_bus_message_open_container(pointer, CChar(type.asciiValue!), contents), "open \(type)\(contents)")
        try body()
        try check(sd_bus_message_close_container(pointer), "close \(type)\(contents)")
    }

    /// Appends a dict entry `{sv}` whose value has `signature`.
    public func appendEntry(_ key: String, _ signature: String, _ value: () throws -> Void) throws {
        try container("e", "sv") {
            try append(key)
            try container("v", signature, value)
        }
    }

    // MARK: - Answering a method call

    /// A reply to this call, to fill and send (`Bus.send`).
    public func makeReturn() throws -> BusMessage {
        var reply: OpaquePointer?
        try check(sd_bus_message_new_method_return(pointer, &reply), "new method return")
        return BusMessage(owning: reply!)
    }

    /// Answers this call with a D-Bus error.
    @discardableResult
    public func replyError(name: String, message: String) -> Int32 {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        sd_bus_error_set(&error, name, message)
        defer { sd_bus_error_free(&error) }
        return sd_bus_reply_method_error(pointer, &error)
    }
}

/// What a message held instead of the expected type (its D-Bus signature).
public struct BusReadError: Error, Equatable, CustomStringConvertible {
    public let expected: String
    public var description: String { "expected \(expected == "s" ? "a string" : expected)" }
}

/// An sd-bus call that failed: what was done, and the errno text.
public struct BusError: Error, Equatable, CustomStringConvertible {
    public let operation: String
    /// The negative errno sd-bus returned.
    public let code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation): \(String(cString: strerror(-code)))" }
}

@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    guard result >= 0 else { throw BusError(operation(), code: result) }
    return result
}
