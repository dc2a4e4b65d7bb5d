// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

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
            printError(Self.describe(error))
            throw ExitCode(1)
        }
    }

    /// How a followed stream stopped for good, as toastctl exits: an
    /// impostor on the socket 3, a refused subscription 1 (nil: it did not).
    static func exit(for stop: SubscriptionStateMachine.Stop?) throws {
        switch stop {
        case .impostor(let reason)?:
            printError("toastctl: \(reason)")
            throw ExitCode(3)
        case .refused(let error)?:
            printError(describe(error))
            throw ExitCode(1)
        case nil:
            break
        }
    }

    /// How toastctl prints toastd's refusal: `toastctl: code (field): message`.
    static func describe(_ error: ToastError) -> String {
        "toastctl: \(error.code.rawValue)\(error.field.map { " (\($0))" } ?? ""): \(error.message)"
    }

    /// Sends a request whose result names a toast, and prints that id.
    /// Every toast `list` gives, page after page (a reply holds at most
    /// `ListPage.maxLimit`), as one result.
    func listAll(_ filter: EventFilter) throws -> JSONValue {
        let connection = try connect()
        return try WireDecoder.listAll(filter) { try perform($0, on: connection) }
    }

    /// The running toastd's status, quietly (nil when there is none): for
    /// shell completion, which must never print or wait long.
    static func runningStatus() -> JSONValue? {
        guard let connection = try? ToastConnection(path: ToastConnection.path(explicit: nil)),
            let reply = try? connection.request(WireEncoder.request(.status), timeout: 1_000),
            case .success(let status) = WireDecoder.reply(reply)
        else { return nil }
        return status
    }

    func performPrintingID(_ request: Request) throws {
        let result = try perform(WireEncoder.request(request))
        output(result) { "\(result["id"]?.intValue ?? 0)" }
    }

    func output(_ result: JSONValue, text: () -> String) {
        print(json ? result.serialized : text())
    }
}

/// `--scene S` and `--role R...`: what list, watch and history narrow to.
struct FilterOptions: ParsableArguments {
    @Option(help: "Only this scene.") var scene: String?
    @Option(help: "Only these roles (repeatable).", completion: .list(ToastRole.allCases.map(\.rawValue)))
    var role: [ToastRole] = []

    var filter: EventFilter { EventFilter(scene: scene, anyOf: role) }
}

extension JSONValue {
    /// A scalar as plain text (strings without quotes).
    var serializedScalar: String {
        if case .string(let text) = self { return Terminal.sanitize(text) }
        return serialized
    }
}
