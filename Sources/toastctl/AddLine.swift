// SPDX-License-Identifier: Apache-2.0
import CToastctlFront

/// `toastctl add MESSAGE [--title T] [--role R] ...` as toastd's request
/// line, or nil for any command line the front leaves to the full toastctl.
///
/// The front knows a strict part of what `QuickAdd` (Sources/ToastctlCommands)
/// knows: the message, the options whose value goes on the wire as it was
/// typed, `--duration` and `--progress` written as a plain number, a number
/// of seconds (`5s`) or a name, and the two flags. Anything else (`--help`,
/// `--json`, `--wait`, `--action`, an icon that is a path, `2m`, a repeated
/// option, bytes that are not UTF-8, an unknown word) is nil. toastd checks
/// what it is sent exactly as the full toastctl checks it before sending
/// (the same decoder), and a refused add runs the full toastctl, so every
/// message and exit status stays the full toastctl's.
/// (Tests/IntegrationTests/ToastctlFrontTests.swift: on every command line
/// the front takes, toastd reads the request it would have read from the full toastctl.)
struct AddLine {
    /// `--socket`'s value, when given and not empty.
    var socket: Word?
    /// The request, ending with its newline.
    var line: [UInt8]

    /// The arguments after the program's name.
    init?(arguments: UnsafeBufferPointer<Word>) {
        guard let command = arguments.first, command == "add" else { return nil }
        var values = Values()
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            guard word.hasPrefix("-") else {
                guard values.message == nil else { return nil }
                values.message = word
                continue
            }
            guard word.hasPrefix("--") else { return nil }
            var name = word.slice(2, word.count)
            var value: Word?
            if let equals = name.firstIndex(of: UInt8(ascii: "=")) {
                value = name.slice(equals + 1, name.count)
                name = name.slice(0, equals)
            }
            guard !name.isEmpty else { return nil }
            if name == "not-dismissible" || name == "close-button" {
                guard value == nil else { return nil }
                guard values.set(flag: name) else { return nil }
                continue
            }
            if value == nil, index < arguments.count {
                value = arguments[index]
                index += 1
            }
            guard let value, !value.hasPrefix("-"), values.set(name, to: value) else { return nil }
        }
        guard let line = values.line() else { return nil }
        self.socket = values.socket.flatMap { $0.isEmpty ? nil : $0 }
        self.line = line
    }
}

/// What the command line gave, each at most once.
private struct Values {
    var message: Word?
    var socket: Word?
    /// The string-valued fields, in the order written: their wire names and values.
    var strings: [(key: StaticString, value: Word)] = []
    var duration: Word?
    var progress: Word?
    var notDismissible = false
    var closeButton = false

    mutating func set(flag name: Word) -> Bool {
        if name == "not-dismissible" {
            guard !notDismissible else { return false }
            notDismissible = true
        } else {
            guard !closeButton else { return false }
            closeButton = true
        }
        return true
    }

    mutating func set(_ name: Word, to value: Word) -> Bool {
        if name == "socket" { return Self.once(&socket, value) }
        if name == "duration" { return Self.once(&duration, value) }
        if name == "progress" { return Self.once(&progress, value) }
        // An icon that is a path becomes an image: the full toastctl's work.
        if name == "icon", value.hasPrefix("/") || value.hasPrefix("file://") { return false }
        guard let key = Self.wireName(of: name) else { return false }
        for field in strings where field.key.utf8CodeUnitCount == key.utf8CodeUnitCount
            && memcmp(field.key.utf8Start, key.utf8Start, key.utf8CodeUnitCount) == 0 { return false }
        strings.append((key, value))
        return true
    }

    /// The options whose value is sent as typed.
    private static func wireName(of option: Word) -> StaticString? {
        if option == "title" { return "title" }
        if option == "icon" { return "icon" }
        if option == "role" { return "role" }
        if option == "alignment" { return "alignment" }
        if option == "scene" { return "scene" }
        if option == "reuse-id" { return "reuseId" }
        if option == "source" { return "source" }
        if option == "cancellation" { return "cancellation" }
        return nil
    }

    private static func once(_ field: inout Word?, _ value: Word) -> Bool {
        guard field == nil else { return false }
        field = value
        return true
    }

    /// `{"op":"add","toast":{...}}` and a newline, or nil when a value cannot be sent as typed.
    func line() -> [UInt8]? {
        guard let message else { return nil }
        var json = JSONWriter()
        json.raw("{\"op\":\"add\",\"toast\":{\"message\":")
        guard json.string(message) else { return nil }
        for field in strings {
            json.key(field.key)
            guard json.string(field.value) else { return nil }
        }
        if let duration {
            json.key("duration")
            guard json.numberOrName(duration) else { return nil }
        }
        if let progress {
            json.key("progress")
            guard json.numberOrName(progress) else { return nil }
        }
        if notDismissible {
            json.key("dismissible")
            json.raw("false")
        }
        if closeButton {
            json.key("closeButton")
            json.raw("true")
        }
        json.raw("}}\n")
        return json.bytes
    }
}
