// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// `toastctl add MESSAGE [--role R] ...`, read without ArgumentParser.
///
/// A one-line `toastctl add` from a script is toastd's hottest path, and
/// ArgumentParser builds every subcommand's argument set through
/// reflection before it reads a word: about 13 million instructions, three
/// quarters of the whole run (docs/BENCHMARKS.md). This reader knows only
/// the plain form of `add`: the message and the value options and flags
/// that map onto toast fields. For anything else (`--help`, `--wait`, a
/// value starting with `-`, a repeated single option, an unknown word, an
/// invalid field) it returns nil and ArgumentParser takes over, so every
/// message and exit status stays ArgumentParser's. A test checks that,
/// wherever this reader accepts a command line, ArgumentParser reads the
/// same request from it.
struct QuickAdd: ClientContext, Equatable {
    var socket: String?
    var json = false
    var message: String
    var fields = ToastFields()
    /// The add request.
    var request: JSONValue
}

extension QuickAdd {
    init?(arguments: [String]) {
        guard arguments.first == "add" else { return nil }
        var socket: String?
        var json = false
        var message: String?
        var fields = ToastFields()
        var words = arguments.dropFirst().makeIterator()
        while let word = words.next() {
            guard word.hasPrefix("-") else {
                guard message == nil else { return nil }
                message = word
                continue
            }
            let name: Substring
            var value: String?
            if let equals = word.firstIndex(of: "=") {
                let nameStart = word.index(word.startIndex, offsetBy: 2, limitedBy: equals) ?? equals
                name = word[nameStart..<equals]
                value = String(word[word.index(after: equals)...])
            } else {
                name = word.dropFirst(2)
            }
            guard word.hasPrefix("--"), !name.isEmpty else { return nil }
            switch name {
            case "json", "not-dismissible", "close-button":
                guard value == nil else { return nil }
                switch name {
                case "json": json = true
                case "not-dismissible": fields.notDismissible = true
                default: fields.closeButton = true
                }
                continue
            default:
                break
            }
            if value == nil { value = words.next() }
            guard let value, !value.hasPrefix("-") else { return nil }
            func setOnce(_ field: inout String?) -> Bool {
                guard field == nil else { return false }
                field = value
                return true
            }
            let accepted: Bool
            switch name {
            case "socket": accepted = setOnce(&socket)
            case "title": accepted = setOnce(&fields.title)
            case "icon": accepted = setOnce(&fields.icon)
            case "role": accepted = setOnce(&fields.role)
            case "duration": accepted = setOnce(&fields.duration)
            case "alignment": accepted = setOnce(&fields.alignment)
            case "scene": accepted = setOnce(&fields.scene)
            case "reuse-id": accepted = setOnce(&fields.reuseID)
            case "progress": accepted = setOnce(&fields.progress)
            case "source": accepted = setOnce(&fields.source)
            case "cancellation": accepted = setOnce(&fields.cancellation)
            case "action": fields.actions.append(value); accepted = true
            case "invalidation": fields.invalidation.append(value); accepted = true
            default: accepted = false
            }
            guard accepted else { return nil }
        }
        guard let message, let request = try? fields.addRequest(message: message) else { return nil }
        self.init(socket: socket, json: json, message: message, fields: fields, request: request)
    }
}
