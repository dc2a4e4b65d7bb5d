// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Show a toast and print its id.",
            discussion: """
                toastctl add MESSAGE, or toastctl add TITLE MESSAGE as notify-send's summary and body. \
                A MESSAGE of - is read from standard input; if that is empty, the title alone is the \
                message. With --wait, block until the toast ends and print the invoked action's id, or \
                the reason it ended. notify-send's flags work too (-u, -t, -a, -i, -c, -h, -e, -r, -p, \
                -A, -w); -h is a hint here, as in notify-send, so help is --help.
                """,
            helpNames: [.long]
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: ArgumentHelp("The message, or the title and then the message (- reads it from stdin).", valueName: "text"))
        var text: [String]
        @OptionGroup var fields: ToastFieldOptions
        @OptionGroup(title: "notify-send's flags") var notify: NotifySendOptions
        @Flag(name: [.customShort("w"), .long], help: "Wait until the toast ends; print the action id or the end reason.") var wait = false
        @Option(help: "With --wait: give up after this many seconds (the toast is removed).") var timeout: Double?

        func validate() throws {
            guard (1...2).contains(text.count) else {
                throw ValidationError("give the message, or the title and the message (got \(text.count) words; quote a message with spaces)")
            }
            if text.count == 2 && fields.title != nil { throw ValidationError("the title is given twice: as the first word and as --title") }
            if timeout != nil && !wait { throw ValidationError("--timeout goes with --wait") }
        }

        func run() throws {
            var values = fields.values
            if text.count == 2 { values.title = text[0] }
            var message = text[text.count - 1]
            if message == "-" {
                message = Self.readStandardInput()
                // `make | tail -1 | toastctl add --title make -` with nothing to say: the title says it.
                if message.isEmpty, let title = values.title {
                    message = title
                    values.title = nil
                }
                if message.isEmpty { throw ValidationError("the message is empty: standard input had nothing, and there is no title") }
            }
            let request: JSONValue
            do {
                try notify.values.apply(to: &values)
                request = try values.addRequest(message: message)
            } catch let invalid {
                throw ValidationError(invalid.message)
            }
            if let replaceID = notify.replaceID, try Self.replace(ToastID(replaceID), with: request, client: client) { return }
            try Self.add(request, wait: wait, timeout: timeout, client: client)
        }

        /// notify-send's -r: the toast's fields changed in place, when it is
        /// still there (false when it is gone: a new toast is added instead).
        static func replace(_ id: ToastID, with request: JSONValue, client: ClientOptions) throws -> Bool {
            guard case .object(let toast)? = request["toast"] else { return false }
            var patch: JSONObject = [:]
            for member in ToastMember.allCases where member.isPatchable {
                if let value = toast[member.name] { patch[member.name] = value }
            }
            let connection = try client.connect()
            let update = WireEncoder.request(.command(.update(.id(id), try ToastFields.patch(patch))))
            let reply: JSONValue
            do {
                reply = try connection.request(update, timeout: client.replyTimeout)
            } catch {
                printError("toastctl: \(error)")
                throw ExitCode(1)
            }
            if case .failure(let error) = WireDecoder.reply(reply), error.code == .notFound { return false }
            _ = try client.result(of: reply)
            client.output(["id": .int(Int64(id))]) { "\(id)" }
            return true
        }

        /// All of standard input, less its trailing newlines.
        static func readStandardInput() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                bytes += chunk[..<count]
            }
            while bytes.last == UInt8(ascii: "\n") || bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            return String(decoding: bytes, as: UTF8.self)
        }

        static func add(_ request: JSONValue, wait: Bool, timeout: Double?, client: some ClientContext) throws {
            let connection = try client.connect()
            let result = try client.perform(request, on: connection)
            guard let id = result["id"]?.intValue else { throw ExitCode(1) }
            guard wait else {
                client.output(result) { "\(id)" }
                return
            }
            if result["dropped"] == true {
                // A rule dropped it: it has already ended, and no event will follow.
                client.output(["id": .int(id), "event": "cancelled", "reason": "dropped"]) { "dropped" }
                throw ExitCode(4)
            }
            try waitForEnd(of: id, on: connection, timeout: timeout, client: client)
        }

        static func waitForEnd(of id: Int64, on connection: ToastConnection, timeout: Double?, client: some ClientContext) throws {
            let deadline = timeout.map { monotonicMilliseconds() + Int64($0 * 1000) }
            var action: String?
            while true {
                let left = deadline.map { Int(max(0, $0 - monotonicMilliseconds())) }
                let event: JSONValue
                do {
                    event = try connection.readLine(timeout: left)
                } catch ToastConnection.Failure.timedOut {
                    _ = try? connection.request(WireEncoder.request(.command(.remove(.id(ToastID(id))))), timeout: 1000)
                    client.output(["id": .int(id), "timedOut": true]) { "timeout" }
                    throw ExitCode(5)
                } catch {
                    printError("toastctl: \(error)")
                    throw ExitCode(1)
                }
                guard case .event(let decoded)? = try? WireDecoder.decodeServerLine(event), decoded.record.map({ Int64($0.id) }) == id else {
                    continue
                }
                let ended: (name: String, reason: String)
                switch decoded.kind {
                case .action(_, let actionID):
                    action = actionID
                    continue
                case .dismissed(_, let reason): ended = ("dismissed", reason.rawValue)
                case .cancelled(_, let reason): ended = ("cancelled", reason.rawValue)
                default: continue
                }
                var result: JSONObject = ["id": .int(id), "event": .string(ended.name), "reason": .string(ended.reason)]
                if let action { result["action"] = .string(action) }
                client.output(.object(result)) { action.map(Terminal.sanitize) ?? ended.reason }
                if action == nil { throw ExitCode(4) }
                return
            }
        }
    }
}
