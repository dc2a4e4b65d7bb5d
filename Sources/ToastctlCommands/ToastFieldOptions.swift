// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import ToastProtocol

/// The toast fields, as command-line options shared by `add` and `run`.
public struct ToastFieldOptions: ParsableArguments {
    public init() {}

    @Option(help: "A bold title above the message.") var title: String?
    @Option(name: [.customShort("i"), .long], help: "An emoji, an icon name, or an image's path.") var icon: String?
    @Option(help: "plain, info, success, warning or failure.", completion: .list(ToastRole.allCases.map(\.rawValue))) var role: String?
    @Option(help: "short (2 s), long (3.5 s), longer (5 s), indefinite, or a time: 500ms, 5s, 2m, 1h (a bare number is seconds; 0.1 s to 24 h).", completion: .list(["short", "long", "longer", "indefinite"])) var duration: String?
    @Option(help: "top, center (a HUD) or bottom.", completion: .list(ToastAlignment.allCases.map(\.rawValue))) var alignment: String?
    @Option(help: "The scene (presentation context).") var scene: String?
    @Option(name: .customLong("reuse-id"), help: "Adding a toast with the same reuse id updates it in place.") var reuseID: String?
    @Option(help: "none, indeterminate (a spinner), or a fraction from 0 to 1 (a bar).", completion: .list(["none", "indeterminate"])) var progress: String?
    @Flag(name: .customLong("not-dismissible"), help: "A person may not dismiss it.") var notDismissible = false
    @Flag(name: .customLong("close-button"), help: "Show a close button.") var closeButton = false
    @Option(name: .customLong("action"), help: "An action as ID:LABEL, e.g. undo:Undo (repeatable, up to 16; the id default is a click on the body).") var actions: [String] = []
    @Option(help: "Who sends it (default: this process, name[pid]).") var source: String?
    @Option(help: "never, presentation or always.", completion: .list(CancellationPolicy.allCases.map(\.rawValue))) var cancellation: String?
    @Option(help: "How important, 0 to 100 (default: its role's; failure 80): at or above a pause's level it still shows.")
    var level: Int?
    @Option(help: "contextChanged or presentationDismissed (repeatable).", completion: .list(["contextChanged", "presentationDismissed"])) var invalidation: [String] = []

    /// The options' values, as a plain value.
    var values: ToastFields {
        ToastFields(
            title: title, icon: icon, role: role, duration: duration, alignment: alignment, scene: scene,
            reuseID: reuseID, progress: progress, notDismissible: notDismissible, closeButton: closeButton,
            actions: actions, source: source, cancellation: cancellation, invalidation: invalidation, level: level
        )
    }
}

/// The toast fields a command line gave, before they become the `toast`
/// member of an add.
struct ToastFields: Equatable {
    var title: String?
    var icon: String?
    var role: String?
    var duration: String?
    var alignment: String?
    var scene: String?
    var reuseID: String?
    var progress: String?
    var notDismissible = false
    var closeButton = false
    var actions: [String] = []
    var source: String?
    var cancellation: String?
    var invalidation: [String] = []
    var level: Int?
    /// Members with no option of their own (notify-send's flags and hints).
    var extra: JSONObject = [:]

    struct Invalid: Error {
        var message: String
    }

    /// The add request, checked locally with the protocol's own rules, so
    /// that a bad option is a usage error (exit 2). The fields given on
    /// the command line stay explicit on the wire, even at their defaults
    /// (`--alignment top`), so that role defaults leave them alone.
    func addRequest(message: String) throws(Invalid) -> JSONValue {
        var members: JSONObject = ["message": .string(message)]
        if let title { members["title"] = .string(title) }
        if let icon { members["icon"] = .string(icon) }
        if let role { members["role"] = .string(role) }
        if let duration { members["duration"] = Self.numberOrName(duration) }
        if let alignment { members["alignment"] = .string(alignment) }
        if let scene { members["scene"] = .string(scene) }
        if let reuseID { members["reuseId"] = .string(reuseID) }
        if let progress { members["progress"] = Self.numberOrName(progress) }
        if notDismissible { members["dismissible"] = false }
        if closeButton { members["closeButton"] = true }
        if !actions.isEmpty { members["actions"] = .array(try actions.map(Self.action)) }
        if let source { members["source"] = .string(source) }
        if let cancellation { members["cancellation"] = .string(cancellation) }
        if !invalidation.isEmpty { members["invalidation"] = .array(invalidation.map { .string($0) }) }
        if let level { members["level"] = .int(Int64(level)) }
        for (key, value) in extra { members[key] = value }
        // An icon that is a path is an image, as freedesktop's app_icon is.
        if let icon, icon.hasPrefix("/") || icon.hasPrefix("file://"), members["image"] == nil {
            members["icon"] = nil
            members["image"] = ["path": .string(icon)]
        }
        if actions.count > ToastLimits.maxActions {
            throw Invalid(message: "--action: at most \(ToastLimits.maxActions) actions (got \(actions.count))")
        }
        let toast: Toast
        do {
            toast = try WireDecoder.decodeToast(.object(members))
        } catch {
            throw Invalid(message: error.fieldDescription)
        }
        var defaulted: ToastFieldSet = []
        if duration == nil { defaulted.insert(.duration) }
        if alignment == nil { defaulted.insert(.alignment) }
        if !notDismissible { defaulted.insert(.dismissible) }
        return WireEncoder.request(RequestEnvelope(request: .command(.add(toast)), defaulted: defaulted))
    }

    /// An update's patch, checked locally as toastd would check it.
    static func patch(_ members: JSONObject) throws(Invalid) -> ToastPatch {
        do {
            return try WireDecoder.decodePatch(.object(members))
        } catch {
            throw Invalid(message: error.fieldDescription)
        }
    }

    static func numberOrName(_ text: String) -> JSONValue {
        if let number = Double(text), number.isFinite { return .double(number) }
        if let seconds = seconds(text) { return .double(seconds) }
        return .string(text)
    }

    /// A time with its unit, in seconds: 500ms, 5s, 2m, 1h (also 1.5s).
    static func seconds(_ text: String) -> Double? {
        for (unit, scale) in [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)] where text.hasSuffix(unit) {
            guard let number = Double(text.dropLast(unit.count)), number.isFinite, number >= 0,
                text.first.map({ $0.isNumber || $0 == "." }) == true
            else { continue }
            return number * scale
        }
        return nil
    }

    static func action(_ text: String) throws(Invalid) -> JSONValue {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
            throw Invalid(message: "--action takes ID:LABEL, e.g. undo:Undo (got '\(text)')")
        }
        return ["id": .string(String(text[..<colon])), "label": .string(String(text[text.index(after: colon)...]))]
    }
}

extension ToastError {
    /// "--duration: must be ..." for a field of the toast, else the message.
    var fieldDescription: String {
        guard let field else { return message }
        let option = field.replacingPrefix("toast.", with: "")
        if option == "message" { return "the message: \(message)" }
        let names = ["reuseId": "reuse-id", "actions": "action", "closeButton": "close-button", "desktopEntry": "hint desktop-entry",
                     "soundName": "hint sound-name", "image": "icon"]
        let head = option.split(separator: ".", maxSplits: 1).first.map(String.init) ?? option
        return "--\(names[head] ?? head)\(option.dropFirst(head.count)): \(message)"
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }

    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
