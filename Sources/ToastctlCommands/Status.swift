// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "The daemon's counters; with --follow, a line per change (for status bars).",
            discussion: """
                --follow prints the status once, then again each time it changes, until interrupted; when \
                toastd goes away it prints an `offline` line and reconnects. --format waybar prints \
                waybar's custom-module JSON with swaync's state names: text (toasts live), alt and class \
                (notification, none, dnd-notification, dnd-none, inhibited-notification, inhibited-none, \
                offline), tooltip (with the inhibitors' reasons). Once, with toastd down, it prints offline.
                """
        )
        @OptionGroup var client: ClientOptions
        @Flag(help: "Print again on every change, until interrupted.") var follow = false
        @Option(help: "text, json or waybar.") var format: StatusFormat?

        func run() throws {
            let format = self.format ?? (client.json ? .json : .text)
            guard follow else {
                // A status bar polling once: toastd down is a state to show, not an error.
                if format == .waybar, (try? ToastConnection(path: client.socketPath)) == nil {
                    print(format.offline)
                    return
                }
                print(format.render(try client.perform(WireEncoder.request(.status))))
                return
            }
            try Self.follow(client: client) { status in
                printLine(status.map(format.render) ?? format.offline)
            }
        }

        /// Calls `emit` with the status now and after every change (nil while
        /// toastd is unreachable); returns only on an impostor.
        static func follow(client: ClientOptions, emit: (JSONValue?) -> Void) throws {
            var last: String?
            func report(_ status: JSONValue?) {
                let key = status.map(StatusFormat.waybar.render) ?? ""
                if key != last {
                    last = key
                    emit(status)
                }
            }
            // The events connection follows the stream (`SubscriptionStateMachine`);
            // a second one asks for the status after each event.
            var queries: ToastConnection?
            var machine = SubscriptionStateMachine(snapshot: false)
            let stop = ResumingSubscriber.run(
                path: client.socketPath, machine: &machine,
                onConnection: { _ in queries = try? ToastConnection(path: client.socketPath) },
                onWait: { _, _ in
                    queries = nil
                    report(nil)
                }
            ) { line, _ in
                guard let connection = queries,
                    let reply = try? connection.request(WireEncoder.request(.status), timeout: client.replyTimeout),
                    case .success(let status) = WireDecoder.reply(reply)
                else { return report(nil) }
                // A burst of events is a burst of equal statuses: `report` prints each change once.
                report(status)
            }
            try ClientOptions.exit(for: stop)
        }
    }
}

/// How `status` prints.
enum StatusFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, waybar

    func render(_ status: JSONValue) -> String {
        switch self {
        case .json:
            return status.serialized
        case .waybar:
            return Self.waybar(status).serialized
        case .text:
            guard case .object(let members) = status else { return "" }
            return members.keys.sorted().map { "\($0): \(members[$0]!.serializedScalar)" }.joined(separator: "\n")
        }
    }

    var offline: String {
        switch self {
        case .text: "offline"
        case .json: #"{"offline":true}"#
        case .waybar:
            (["text": "", "alt": "offline", "class": "offline", "tooltip": "toastd is not running"] as JSONValue).serialized
        }
    }

    /// waybar's custom module JSON, with swaync-client -swb's state names,
    /// so a swaync user's `format-icons` light the right icon: `alt` is
    /// `notification` or `none` (toasts live or not), prefixed `dnd-` when
    /// the user paused (toastctl pause, or a mode's pause) and `inhibited-`
    /// when only inhibitors hold; `class` is the same, plus `config-error`
    /// when toastd refused its configuration file.
    static func waybar(_ status: JSONValue) -> JSONValue {
        let shown = status["shown"]?.intValue ?? 0
        let queued = status["queued"]?.intValue ?? 0
        let level = status["pauseLevel"]?.intValue ?? 0
        let pausedLevel = status["pausedLevel"]?.intValue ?? level
        let inhibitors = status["inhibitors"]?.intValue ?? 0
        let live = shown + queued > 0 ? "notification" : "none"
        let alt = pausedLevel > 0 ? "dnd-" + live : level > 0 ? "inhibited-" + live : live
        var tooltip = "\(shown) shown, \(queued) waiting"
        if level > 0 { tooltip += "; do not disturb at level \(level)" }
        if inhibitors > 0 {
            tooltip += "; \(inhibitors) inhibitor\(inhibitors == 1 ? "" : "s")"
            if case .array(let reasons)? = status["inhibitorReasons"], !reasons.isEmpty {
                tooltip += " (" + reasons.compactMap(\.stringValue).joined(separator: ", ") + ")"
            }
        }
        if case .array(let modes)? = status["modes"], !modes.isEmpty {
            tooltip += "; modes: " + modes.compactMap(\.stringValue).joined(separator: ", ")
        }
        var classes: [JSONValue] = [.string(alt)]
        if let error = status["configError"]?.stringValue {
            classes.append("config-error")
            tooltip += "\nconfiguration refused: " + (error.split(separator: "\n").first.map(String.init) ?? "")
        }
        return [
            "text": .string(shown + queued > 0 ? "\(shown + queued)" : ""),
            "alt": .string(alt),
            "class": classes.count == 1 ? classes[0] : .array(classes),
            // waybar reads the tooltip as Pango markup.
            "tooltip": .string(Self.escapingMarkup(tooltip)),
        ]
    }

    static func escapingMarkup(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
