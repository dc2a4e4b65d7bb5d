import ArgumentParser
import ToastCore

#if canImport(Glibc)
import Glibc
#endif

/// `toastctl`: one subcommand per protocol operation.
///
/// Exit status: 0 success; 1 toastd replied with an error (code and message
/// on stderr); 2 usage error; 3 cannot connect to toastd. `add --wait`: 0
/// when an action was invoked (its id is printed), 4 when the toast ended
/// otherwise (the reason is printed), 5 on --timeout.
public struct Toastctl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "toastctl",
        abstract: "Show and manage toasts through toastd.",
        discussion: """
            Exit status: 0 success, 1 toastd replied with an error, 2 usage error, 3 cannot connect \
            to toastd. With add --wait: 0 an action was invoked, 4 the toast ended without an action, \
            5 --timeout passed.
            """,
        version: ProtocolInfo.toolVersion,
        subcommands: [
            Add.self, Update.self, Remove.self, Dismiss.self, Invoke.self, Clear.self, List.self, Pause.self,
            Resume.self, IsPaused.self, Mode.self, Inhibit.self, Reload.self, Status.self, Watch.self, Raw.self,
            Run.self, History.self, Restore.self,
        ]
    )

    public init() {}

    /// Runs toastctl with usage errors mapped to exit status 2.
    public static func main(arguments: [String]) -> Never {
        if let quick = QuickAdd(arguments: arguments) {
            do {
                try Add.add(quick.request, wait: false, timeout: nil, client: quick)
                Glibc.exit(0)
            } catch let code as ExitCode {
                Glibc.exit(code.rawValue)
            } catch {
                Glibc.exit(1)
            }
        }
        CommandLineTool.main(Toastctl.self, arguments: arguments)
    }
}

/// How every toastd tool ends: 0 on success (and for --help and
/// --version), the command's own status when it throws an `ExitCode`, and
/// **2 for a usage error**, with ArgumentParser's message on stderr, in
/// toastd, toastctl, toast-tail and toast-notify alike.
public enum CommandLineTool {
    public static let usageError: Int32 = 2

    public static func main<Command: ParsableCommand>(_: Command.Type, arguments: [String]) -> Never {
        do {
            var command = try Command.parseAsRoot(arguments)
            try command.run()
            Glibc.exit(0)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            let code = Command.exitCode(for: error)
            if code == .success {
                print(Command.fullMessage(for: error))
                Glibc.exit(0)
            }
            printError(Command.fullMessage(for: error))
            Glibc.exit(code == .validationFailure ? usageError : code.rawValue)
        }
    }
}

/// Options every subcommand has.
struct ClientOptions: ParsableArguments, ClientContext {
    @Option(help: "The toastd socket (default: $TOASTD_SOCKET, else $XDG_RUNTIME_DIR/toastd.sock, else /tmp/toastd-$UID/toastd.sock).")
    var socket: String?

    @Flag(help: "Print the reply's result as JSON, for scripts and jq.")
    var json = false
}

/// Where toastd is and how to print its answers: what every command needs,
/// whether ArgumentParser or `QuickAdd` read its arguments.
protocol ClientContext {
    var socket: String? { get }
    var json: Bool { get }
}

extension ClientContext {
    var socketPath: String { ToastConnection.path(explicit: socket) }

    func connect() throws -> ToastConnection {
        do {
            return try ToastConnection(path: socketPath)
        } catch {
            printError("toastctl: \(error)")
            throw ExitCode(3)
        }
    }

    /// Sends one request and returns the result of a successful reply; an
    /// error reply goes to stderr with exit status 1.
    func perform(_ request: JSONValue, on connection: ToastConnection? = nil) throws -> JSONValue {
        let connection = try connection ?? connect()
        let reply: JSONValue
        do {
            reply = try connection.request(request, timeout: replyTimeout)
        } catch .timedOut {
            printError("toastctl: toastd at \(socketPath) accepted the connection but did not reply within \(replyTimeout / 1000) s")
            throw ExitCode(1)
        } catch {
            printError("toastctl: \(error)")
            throw ExitCode(1)
        }
        return try result(of: reply)
    }

    /// How long a command waits for its reply (a restarting daemon may take a few seconds).
    var replyTimeout: Int { 30_000 }

    func result(of reply: JSONValue) throws -> JSONValue {
        switch WireDecoder.reply(reply) {
        case .success(let result):
            return result
        case .failure(let error):
            printError("toastctl: \(error.code.rawValue)\(error.field.map { " (\($0))" } ?? ""): \(error.message)")
            throw ExitCode(1)
        }
    }

    /// Sends a request whose result names a toast, and prints that id.
    func performPrintingID(_ request: Request) throws {
        let result = try perform(WireEncoder.request(request))
        output(result) { "\(result["id"]?.intValue ?? 0)" }
    }

    func output(_ result: JSONValue, text: () -> String) {
        print(json ? result.serialized : text())
    }
}

public func printError(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// Writes a line to stdout at once, so a pipe sees each event as it happens.
func printLine(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// `--scene S` and `--role R...`: what list, watch and history narrow to.
struct FilterOptions: ParsableArguments {
    @Option(help: "Only this scene.") var scene: String?
    @Option(help: "Only these roles (repeatable).") var role: [String] = []

    var filter: SceneFilter { SceneFilter(scene: scene, roles: role) }
}

/// `ID`, `--reuse-id R [--scene S]`, or (where a command allows it)
/// `--latest`: the toast presented last, for keybindings that know no id.
struct TargetOptions: ParsableArguments {
    @Argument(help: "The toast's id.") var id: UInt64?
    @Option(name: .customLong("reuse-id"), help: "Name the toast by its reuse id instead.") var reuseID: String?
    @Option(help: "The scene of --reuse-id.") var scene: String?

    func validate() throws {
        if (id == nil) == (reuseID == nil) { throw ValidationError("name the toast by its ID or by --reuse-id, not both") }
        if scene != nil && reuseID == nil { throw ValidationError("--scene goes with --reuse-id") }
    }

    /// The toast named (`validate` made sure there is exactly one name).
    var target: ToastTarget {
        if let reuseID { return .reuseID(reuseID, scene: scene ?? Toast.defaultScene) }
        return .id(ToastID(id ?? 0))
    }
}

/// The target of dismiss and invoke: an id, a reuse id, or `--latest`.
struct LatestTargetOptions: ParsableArguments {
    @Option(name: .customLong("reuse-id"), help: "Name the toast by its reuse id instead of its ID.") var reuseID: String?
    @Option(help: "The scene of --reuse-id.") var scene: String?
    @Flag(help: "The toast shown last (the newest on screen), for keybindings.") var latest = false

    func validate(id: UInt64?) throws {
        let given = [id != nil, reuseID != nil, latest].filter { $0 }.count
        if given != 1 { throw ValidationError("name the toast by its ID, by --reuse-id, or with --latest: one of them") }
        if scene != nil && reuseID == nil { throw ValidationError("--scene goes with --reuse-id") }
    }

    /// The toast named; `--latest` asks toastd which toast that is, and
    /// returns it too. `having`: only toasts with this action (or with any
    /// action, for "").
    func target(id: UInt64?, client: ClientOptions, having action: String? = nil) throws -> (ToastTarget, latest: JSONValue?) {
        if let reuseID { return (.reuseID(reuseID, scene: scene ?? Toast.defaultScene), nil) }
        guard latest else { return (.id(ToastID(id ?? 0)), nil) }
        let snapshot = try client.perform(WireEncoder.request(.list(EventFilter())))
        guard let newest = Self.latest(in: snapshot, having: action), let id = newest["id"]?.intValue else {
            printError("toastctl: no toast is shown" + (action.map { $0.isEmpty ? " with an action" : " with action '\($0)'" } ?? ""))
            throw ExitCode(1)
        }
        return (.id(ToastID(id)), newest)
    }

    /// The shown toast presented last (highest `presentedAt`, then id).
    static func latest(in snapshot: JSONValue, having action: String?) -> JSONValue? {
        guard case .array(let toasts)? = snapshot["toasts"] else { return nil }
        let shown = toasts.filter { toast in
            guard toast["state"] == "shown" else { return false }
            guard let action else { return true }
            guard case .array(let actions)? = toast["actions"], !actions.isEmpty else { return false }
            return action.isEmpty || actions.contains { $0["id"]?.stringValue == action }
        }
        let newest = shown.max { ($0["presentedAt"]?.intValue ?? 0, $0["id"]?.intValue ?? 0) < ($1["presentedAt"]?.intValue ?? 0, $1["id"]?.intValue ?? 0) }
        return newest
    }
}

extension Toastctl {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Show a toast and print its id.",
            discussion: """
                toastctl add MESSAGE, or toastctl add TITLE MESSAGE as notify-send's summary and body. \
                A MESSAGE of - is read from standard input. With --wait, block until the toast ends and \
                print the invoked action's id, or the reason it ended.
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: ArgumentHelp("The message, or the title and then the message (- reads it from stdin).", valueName: "text"))
        var text: [String]
        @OptionGroup var fields: ToastFieldOptions
        @Flag(help: "Wait until the toast ends; print the action id or the end reason.") var wait = false
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
            if message == "-" { message = Self.readStandardInput() }
            let request: JSONValue
            do {
                request = try values.addRequest(message: message)
            } catch let invalid {
                throw ValidationError(invalid.message)
            }
            try Self.add(request, wait: wait, timeout: timeout, client: client)
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
                guard event["toast"]?["id"]?.intValue == id else { continue }
                switch event["event"]?.stringValue {
                case "action":
                    action = event["action"]?.stringValue
                case "dismissed", "cancelled":
                    let reason = event["reason"]?.stringValue ?? "unknown"
                    var result: [String: JSONValue] = ["id": .int(id), "event": event["event"] ?? nil, "reason": .string(reason)]
                    if let action { result["action"] = .string(action) }
                    client.output(.object(result)) { action ?? reason }
                    if action == nil { throw ExitCode(4) }
                    return
                default:
                    continue
                }
            }
        }
    }

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
            var patch: [String: JSONValue] = [:]
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

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "End a toast (as its program).")
        @OptionGroup var client: ClientOptions
        @OptionGroup var target: TargetOptions
        func run() throws { try client.performPrintingID(.command(.remove(target.target))) }
    }

    struct Dismiss: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss", abstract: "Dismiss a toast (as a person); refused if it is not dismissible.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "The toast's id.") var id: UInt64?
        @OptionGroup var target: LatestTargetOptions
        func validate() throws { try target.validate(id: id) }
        func run() throws { try client.performPrintingID(.command(.dismiss(target.target(id: id, client: client).0))) }
    }

    struct Invoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "invoke",
            abstract: "Invoke one of a toast's actions.",
            discussion: """
                toastctl invoke ID --action ACTION, or toastctl invoke --latest [ACTION]: the toast shown                 last that has ACTION (or any action; then its first one, as a click would).
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "The toast's id; with --latest, the action.") var idOrAction: String?
        @OptionGroup var target: LatestTargetOptions
        @Option(help: "The action's id.") var action: String?

        var id: UInt64? { target.latest ? nil : idOrAction.flatMap(UInt64.init) }
        var actionID: String? { action ?? (target.latest ? idOrAction : nil) }

        func validate() throws {
            if !target.latest, let idOrAction, UInt64(idOrAction) == nil {
                throw ValidationError("'\(idOrAction)' is not a toast id")
            }
            if target.latest && action != nil && idOrAction != nil {
                throw ValidationError("give the action once: as --action or after --latest")
            }
            try target.validate(id: id)
            if !target.latest && action == nil { throw ValidationError("missing --action") }
        }

        func run() throws {
            let (toast, latest) = try target.target(id: id, client: client, having: actionID ?? "")
            var chosen = actionID
            if chosen == nil, case .array(let actions)? = latest?["actions"] {
                // The first action of the toast --latest picked, as a click would invoke.
                chosen = actions.first?["id"]?.stringValue
            }
            guard let chosen else {
                printError("toastctl: the toast has no action to invoke")
                throw ExitCode(1)
            }
            try client.performPrintingID(.command(.invoke(toast, actionID: chosen)))
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "End every dismissible toast of a scene, an alignment, or all.")
        @OptionGroup var client: ClientOptions
        @Option(help: "Only this scene.") var scene: String?
        @Option(help: "Only this alignment: top, center or bottom.", completion: .list(ToastAlignment.allCases.map(\.rawValue)))
        var alignment: ToastAlignment?
        @Flag(help: "Also end toasts that are not dismissible.") var force = false
        func run() throws {
            let scope = ClearScope(scene: scene, alignment: alignment, force: force)
            let result = try client.perform(WireEncoder.request(.command(.clear(scope))))
            client.output(result) { "cleared \(result["cleared"]?.intValue ?? 0), kept \(result["kept"]?.intValue ?? 0)" }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List live toasts.")
        @OptionGroup var client: ClientOptions
        @OptionGroup var only: FilterOptions
        func run() throws {
            let result = try client.perform(only.filter.request("list"))
            client.output(result) {
                guard case .array(let toasts)? = result["toasts"] else { return "" }
                return toasts.map { toast in
                    let fields = ["id", "state", "role", "alignment", "scene"].map { toast[$0]?.serializedScalar ?? "-" }
                    let repeats = (toast["repeat"]?.intValue ?? 1) > 1 ? " ×\(toast["repeat"]!.intValue!)" : ""
                    var actions = ""
                    if case .array(let list)? = toast["actions"], !list.isEmpty {
                        actions = "\t[" + list.map { action in
                            Terminal.sanitize("\(action["id"]?.stringValue ?? "?"): \(action["label"]?.stringValue ?? "")")
                        }.joined(separator: ", ") + "]"
                    }
                    return fields.joined(separator: "\t") + "\t" + Terminal.sanitize(toast["message"]?.stringValue ?? "") + repeats + actions
                }.joined(separator: "\n") + (result["paused"] == .bool(true) ? "\n(paused)" : "")
            }
        }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Subscribe and print events as they happen, one per line.",
            discussion: """
                When toastd goes away, watch reconnects (0.25 s doubling to 5 s) and resumes where it \
                stopped: the events it missed are printed, or a fresh snapshot if toastd no longer holds \
                them. It stops on SIGINT or SIGTERM.
                """
        )
        @OptionGroup var client: ClientOptions
        @OptionGroup var only: FilterOptions
        func run() throws {
            let filter = only.filter
            var position = StreamPosition()
            var backoff: Int64 = 250
            while true {
                do {
                    let connection = try ToastConnection(path: client.socketPath)
                    let reply = try connection.request(position.subscribeRequest(filter), timeout: client.replyTimeout)
                    _ = try client.result(of: reply)
                    position.note(reply)
                    backoff = 250
                    while true {
                        let event = try connection.readLine()
                        position.note(event)
                        printLine(client.json ? event.serialized : Terminal.describe(event))
                    }
                } catch let failure as ToastConnection.Failure {
                    if case .impostor = failure {
                        printError("toastctl: \(failure)")
                        throw ExitCode(3)
                    }
                    let reason = "\(failure)".split(separator: "\n").first.map(String.init) ?? "disconnected"
                    printError("toastctl: \(reason); retrying in \(Double(backoff) / 1000) s")
                    usleep(useconds_t(backoff * 1000))
                    backoff = min(5_000, backoff * 2)
                }
            }
        }
    }

    struct Raw: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "raw", abstract: "Send one JSON request line and print the reply line.")
        @OptionGroup var client: ClientOptions
        @Argument(help: "The request, e.g. '{\"op\":\"status\"}'.") var line: String
        func run() throws {
            let connection = try client.connect()
            do {
                try connection.sendLine(Array(line.utf8))
                let reply = try connection.readReply()
                print(reply.serialized)
                if case .failure = WireDecoder.reply(reply) { throw ExitCode(1) }
            } catch let failure as ToastConnection.Failure {
                printError("toastctl: \(failure)")
                throw ExitCode(1)
            }
        }
    }
}

extension JSONValue {
    /// A scalar as plain text (strings without quotes).
    var serializedScalar: String {
        if case .string(let text) = self { return Terminal.sanitize(text) }
        return serialized
    }
}
