import CommandLineSupport
import ToastKit
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// toast-tail's non-interactive modes: a readable line per event (for logs,
/// or whenever stdout is not a terminal), the raw JSON event stream (for jq),
/// and a one-shot print of the current stack.
enum TailStream {
    /// Prints events until SIGINT or SIGTERM, reconnecting when toastd goes away.
    static func follow(_ subscription: Subscription, json: Bool) {
        while true {
            let connection = subscription.connectBlocking { why, delay in
                if !json { writeLine("disconnected: \(why); retrying in \(Double(delay) / 1000) s") }
            }
            do {
                while true {
                    let line = try connection.readRawLine()
                    guard let value = try? JSONValue.parse(line) else { continue }
                    subscription.note(value)
                    if let refusal = WireDecoder.refusal(value) {
                        printError("toast-tail: \(Terminal.sanitize(refusal.message))")
                        exit(1)
                    }
                    if StreamPosition.resumed(value) { subscription.resetBackoff() }
                    guard value["event"] != nil else { continue }
                    if value["event"] == "snapshot" { subscription.resetBackoff() }
                    if json {
                        // The daemon's own bytes: canonical JSON, which escapes every control character.
                        writeLine(line)
                    } else {
                        writeLine(Terminal.describe(value))
                    }
                }
            } catch {
                if !json { writeLine("disconnected: \(Subscription.reason(error))") }
            }
        }
    }

    /// Prints the current stack as cards, then a status line.
    static func once(socketPath: String, scene: String, roles: [String], columns: Int, color: Bool) throws {
        let connection = try ToastConnection(path: socketPath)
        let reply = try connection.request(WireEncoder.request(.list(EventFilter(scene: scene, roleNames: roles))), timeout: 5_000)
        let snapshot: SchedulerSnapshot
        do {
            snapshot = try WireDecoder.decodeSnapshot(WireDecoder.reply(reply).get())
        } catch {
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
