// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol

/// notify-send's flags on `toastctl add`, for its users' hands: each maps
/// onto toastd's own word (README.md, "toastctl for notify-send users").
struct NotifySendOptions: ParsableArguments {
    @Option(name: [.customShort("u"), .long], help: "low, normal or critical (critical: role failure and sticky, unless --role or a duration says otherwise).",
            completion: .list(ToastUrgency.allCases.map(\.rawValue)))
    var urgency: String?
    @Option(name: [.customShort("t"), .customLong("expire-time")], help: "How long it shows, in milliseconds; 0 never expires.")
    var expireTime: Int?
    @Option(name: [.customShort("a"), .customLong("app-name")], help: "The application's name: the toast's source.")
    var appName: String?
    @Option(name: [.customShort("c"), .long], help: "A freedesktop category, e.g. email.arrived.") var category: String?
    @Option(name: [.customShort("h"), .customLong("hint")], help: ArgumentHelp(
        "A freedesktop hint, TYPE:NAME:VALUE (repeatable): int:value:N is a progress bar, string:x-dunst-stack-tag:TAG a reuse id, string:image-path:PATH an image, string:desktop-entry, string:sound-name, byte:urgency, boolean:transient, boolean:resident.",
        valueName: "TYPE:NAME:VALUE"))
    var hints: [String] = []
    @Flag(name: [.customShort("e"), .long], help: "Not kept in history.") var transient = false
    @Option(name: [.customShort("r"), .customLong("replace-id")], help: "Replace this toast in place (its id, as printed); a new toast if it is gone.")
    var replaceID: Int?
    @Flag(name: [.customShort("p"), .customLong("print-id")], help: "Print the id (toastctl add always does; for notify-send's scripts).")
    var printID = false
    @Option(name: .customShort("A"), help: ArgumentHelp("An action, as notify-send writes it: NAME=Label, or Label alone (named by its place, 0, 1, ...).", valueName: "[NAME=]Label"))
    var notifyActions: [String] = []

    var values: NotifySendFields {
        NotifySendFields(urgency: urgency, expireTime: expireTime, appName: appName, category: category, hints: hints,
                         transient: transient, actions: notifyActions)
    }
}

/// notify-send's flags as toast fields, checked before anything is sent.
struct NotifySendFields: Equatable {
    var urgency: String?
    var expireTime: Int?
    var appName: String?
    var category: String?
    var hints: [String] = []
    var transient = false
    var actions: [String] = []

    /// Applies the flags to `fields` (and to the toast's members for those
    /// with no option of their own); a conflict with toastd's own option is
    /// a usage error.
    func apply(to fields: inout ToastFields) throws(ToastFields.Invalid) {
        if let appName {
            guard fields.source == nil else { throw .init(message: "-a/--app-name and --source both name the source; give one") }
            fields.source = appName
        }
        if let expireTime {
            guard fields.duration == nil else { throw .init(message: "-t/--expire-time and --duration both give how long it shows; give one") }
            switch expireTime {
            case 0: fields.duration = "indefinite"
            case ..<0: break  // notify-send's -1: the server's default
            default: fields.duration = "\(Double(expireTime) / 1000)"
            }
        }
        if let urgency {
            guard let level = ToastUrgency(rawValue: urgency) else {
                throw .init(message: "-u/--urgency: must be low, normal or critical (got '\(urgency)')")
            }
            fields.extra["urgency"] = .string(level.rawValue)
            if level == .critical {
                if fields.role == nil { fields.role = "failure" }
                if fields.duration == nil { fields.duration = "indefinite" }
            }
        }
        if let category { fields.extra["category"] = .string(category) }
        if transient { fields.extra["transient"] = true }
        for (index, action) in actions.enumerated() {
            let parts = action.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let (id, label) = parts.count == 2 && !parts[0].isEmpty ? (String(parts[0]), String(parts[1])) : ("\(index)", action)
            fields.actions.append("\(id):\(label)")
        }
        for hint in hints { try Self.apply(hint: hint, to: &fields) }
    }

    /// One `TYPE:NAME:VALUE` hint, as the bridge reads the same hint from D-Bus.
    static func apply(hint: String, to fields: inout ToastFields) throws(ToastFields.Invalid) {
        let parts = hint.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, ["int", "double", "string", "byte", "boolean"].contains(parts[0]), !parts[1].isEmpty else {
            throw .init(message: "-h/--hint takes TYPE:NAME:VALUE, TYPE one of int, double, string, byte, boolean (got '\(hint)')")
        }
        let (type, name, value) = (parts[0], parts[1], parts[2])
        func number() throws(ToastFields.Invalid) -> Double {
            guard let number = Double(value), number.isFinite else { throw .init(message: "-h/--hint \(name): '\(value)' is not a number") }
            return number
        }
        func bool() throws(ToastFields.Invalid) -> Bool {
            guard value == "true" || value == "false" || value == "1" || value == "0" else {
                throw .init(message: "-h/--hint \(name): '\(value)' is not true or false")
            }
            return value == "true" || value == "1"
        }
        switch name {
        case "value" where type != "string":
            fields.progress = "\(min(max(try number(), 0), 100) / 100)"
        case "x-dunst-stack-tag", "x-canonical-private-synchronous", "synchronous", "private-synchronous":
            fields.reuseID = value
        case "image-path", "image_path":
            fields.extra["image"] = ["path": .string(value)]
        case "category": fields.extra["category"] = .string(value)
        case "desktop-entry": fields.extra["desktopEntry"] = .string(value)
        case "sound-name": fields.extra["soundName"] = .string(value)
        case "urgency" where type == "byte" || type == "int":
            let level = try number()
            guard (0...2).contains(level) else { throw .init(message: "-h/--hint urgency: 0, 1 or 2 (got '\(value)')") }
            fields.extra["urgency"] = .string(ToastUrgency(level: UInt8(level)).rawValue)
        case "transient": fields.extra["transient"] = .bool(try bool())
        case "resident": fields.extra["resident"] = .bool(try bool())
        default:
            // notify-send passes any hint on; a script written for dunst keeps working.
            printError("toastctl: ignoring the hint '\(name)': toastd uses value, x-dunst-stack-tag, image-path, category, desktop-entry, sound-name, urgency, transient and resident")
        }
    }
}
