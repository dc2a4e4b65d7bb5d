// SPDX-License-Identifier: Apache-2.0
import CToastctlFront

enum Front {
    /// How long the add waits for its reply, as the full toastctl does (a restarting toastd may take seconds).
    static let replyTimeout: Int32 = 30_000
    /// A reply longer than this is not toastd's (an add's is about 400 bytes).
    static let replyLimit = 1 << 20

    static func main() -> Never {
        let arguments = toastctl_front_arguments()!
        let words = (0..<Int(toastctl_front_argument_count())).map { Word(cString: arguments[$0]!) }
        let code = words.withUnsafeBufferPointer { add(arguments: UnsafeBufferPointer(rebasing: $0.dropFirst())) }
        guard let code else { FullToastctl.run(arguments: arguments) }
        exit(code)
    }

    /// Sends the add and prints its id: the exit status, or nil when the
    /// full toastctl should run instead (nothing was added).
    static func add(arguments: UnsafeBufferPointer<Word>) -> Int32? {
        guard let add = AddLine(arguments: arguments), let path = socketPath(explicit: add.socket),
            let connection = Connection(path: path)
        else { return nil }
        defer { connection.finish() }
        // A failed write never sent the line's newline, so toastd read no request.
        guard connection.send(add.line) else { return nil }
        switch connection.readLine(timeout: replyTimeout, limit: replyLimit) {
        case .line(let line):
            switch line.withUnsafeBufferPointer({ Reply(line: $0) }) {
            case .added(let id?):
                Output.write(1, id + [0x0A])
                return 0
            case .added(nil):
                return 1
            case .refused:
                // Nothing was added: the full toastctl checks the command line as it
                // always has, and says why in its words (and its exit status).
                return nil
            case .malformed:
                Output.error("toastctl: toastd sent a malformed line: not a reply")
                return 1
            }
        case .closed:
            Output.error("toastctl: toastd closed the connection")
        case .timedOut:
            Output.error("toastctl: toastd accepted the connection but did not reply within 30 s")
        case .tooLong:
            Output.error("toastctl: toastd sent a malformed line: longer than 1 MiB")
        }
        return 1
    }

    /// `--socket`, else `$TOASTD_SOCKET`, else `$XDG_RUNTIME_DIR/toastd.sock`,
    /// else `/tmp/toastd-UID/toastd.sock` (SocketLocation), or nil for a
    /// path that is not UTF-8, which the full toastctl reads its own way.
    static func socketPath(explicit: Word?) -> [UInt8]? {
        var path: [UInt8]
        if let explicit {
            path = Array(explicit.bytes)
        } else if let socket = environment("TOASTD_SOCKET") {
            path = Array(socket.bytes)
        } else if let runtime = environment("XDG_RUNTIME_DIR") {
            path = Array(runtime.bytes)
            path.append(contentsOf: ("/toastd.sock" as StaticString).bytes)
        } else {
            path = Array(("/tmp/toastd-" as StaticString).bytes)
            path.append(contentsOf: decimal(UInt64(getuid())))
            path.append(contentsOf: ("/toastd.sock" as StaticString).bytes)
        }
        let valid = path.withUnsafeBufferPointer { UTF8Check.isValid($0) }
        return valid ? path : nil
    }

    private static func environment(_ name: StaticString) -> Word? {
        guard let value = getenv(UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) else { return nil }
        let word = Word(cString: value)
        return word.isEmpty ? nil : word
    }

    private static func decimal(_ value: UInt64) -> [UInt8] {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        return digits.reversed()
    }
}
