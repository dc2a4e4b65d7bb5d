// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change fields of a live toast (e.g. its progress).",
            discussion: """
                Every field update may change (PROTOCOL.md, section 5.3): the message, title, icon, role, \
                duration, progress, dismissible, close button and actions. --no-title, --no-icon and \
                --default-duration reset the title, the icon and the duration.
                """
        )
        @OptionGroup var client: ClientOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "A new message.") var message: String?
        @Option(help: "A new title.") var title: String?
        @Flag(help: "Remove the title.") var noTitle = false
        @Option(help: "A new icon.") var icon: String?
        @Flag(help: "Remove the icon.") var noIcon = false
        @Option(help: "A new role.") var role: String?
        @Option(help: "A new duration (restarts its lifetime).") var duration: String?
        @Flag(help: "Back to the default duration (restarts its lifetime).") var defaultDuration = false
        @Option(help: "New progress: none, indeterminate, or 0 to 1.") var progress: String?
        @Flag(inversion: .prefixedNo, help: "Whether a person may dismiss it.") var dismissible: Bool?
        @Flag(name: .customLong("close-button"), inversion: .prefixedNo, help: "Whether it shows a close button.")
        var closeButton: Bool?
        @Option(name: .customLong("action"), help: "Its actions become these, as ID:LABEL (repeatable, up to 3).")
        var actions: [String] = []
        @Flag(help: "Remove its actions.") var noActions = false

        func validate() throws {
            for (set, reset, name) in [(title != nil, noTitle, "title"), (icon != nil, noIcon, "icon"), (duration != nil, defaultDuration, "duration")]
            where set && reset {
                throw ValidationError("--\(name) and its reset exclude each other")
            }
            if !actions.isEmpty && noActions { throw ValidationError("--action and --no-actions exclude each other") }
        }

        func run() throws {
            var patch: JSONObject = [:]
            if let message { patch["message"] = .string(message) }
            if let title { patch["title"] = .string(title) }
            if noTitle { patch["title"] = .null }
            if let icon { patch["icon"] = .string(icon) }
            if noIcon { patch["icon"] = .null }
            if let role { patch["role"] = .string(role) }
            if let duration { patch["duration"] = ToastFields.numberOrName(duration) }
            if defaultDuration { patch["duration"] = .null }
            if let progress { patch["progress"] = ToastFields.numberOrName(progress) }
            if let dismissible { patch["dismissible"] = .bool(dismissible) }
            if let closeButton { patch["closeButton"] = .bool(closeButton) }
            if noActions { patch["actions"] = [] }
            guard !patch.isEmpty || !actions.isEmpty else { throw ValidationError("give at least one field to change") }
            do {
                if !actions.isEmpty { patch["actions"] = .array(try actions.map(ToastFields.action)) }
                try client.performPrintingID(.command(.update(target.target, try ToastFields.patch(patch))))
            } catch let invalid as ToastFields.Invalid {
                throw ValidationError(invalid.message)
            }
        }
    }
}
