// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import CommandLineSupport
import ToastKit
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// toast-tail's non-interactive modes: a readable line per event (for logs,
/// or whenever stdout is not a terminal), the raw JSON event stream (for jq),
/// and a one-shot print of the current stack.
enum TailStream {
    /// Prints events until SIGINT or SIGTERM, reconnecting when toastd goes
    /// away and resuming where it stopped (`SubscriptionStateMachine`).
    static func follow(socketPath: String, filter: EventFilter, json: Bool) {
        var machine = SubscriptionStateMachine(filter: filter)
        let stop = ResumingSubscriber.run(
            path: socketPath, machine: &machine,
            onWait: { milliseconds, why in
                if !json { writeLine("disconnected: \(Terminal.sanitize(why)); retrying in \(Double(milliseconds) / 1000) s") }
            }
        ) { line, value in
            if case .reply = line { return }
            // Canonical JSON, as the daemon writes it: every control character escaped.
            writeLine(json ? value.serialized : Terminal.describe(line))
        }
        switch stop {
        case .impostor(let reason)?:
            printError("toast-tail: \(reason)")
            exit(3)
        case .refused(let error)?:
            printError("toast-tail: \(Terminal.sanitize(error.message))")
            exit(1)
        case nil:
            break
        }
    }

    /// Prints the current stack as cards, then a status line.
    static func once(socketPath: String, scene: String, roles: [String], columns: Int, color: Bool) throws {
        let connection = try ToastConnection(path: socketPath)
        let filter = EventFilter(scene: scene, roleNames: roles)
        let snapshot: SchedulerSnapshot
        do {
            // A reply holds at most `ListPage.maxLimit` toasts: take every page.
            let all = try WireDecoder.listAll(filter) { try WireDecoder.reply(connection.request($0, timeout: 5_000)).get() }
            snapshot = try WireDecoder.decodeSnapshot(all)
        } catch let error as ToastError {
            printError("toast-tail: \(Terminal.sanitize(error.message))")
            exit(1)
        }
        var model = TailModel(scene: scene)
        model.apply(.snapshot(ServerSnapshot(snapshot: snapshot, instance: "")))
        for line in StackRenderer.renderList(model, columns: columns, now: wallClockMilliseconds()) {
            writeLine(line.encoded(color: color))
        }
    }
}

/// Writes a line to stdout at once, unbuffered, so a log or a pipe sees each event as it happens.
func writeLine(_ text: String) {
    writeLine(Array(text.utf8))
}

func writeLine(_ bytes: [UInt8]) {
    var line = bytes
    line.append(UInt8(ascii: "\n"))
    if !TerminalSession.writeAll(STDOUT_FILENO, line) { exit(0) }  // the reader went away (a closed pipe)
}
