// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    /// After SwiftToasts' task modifier: a progress HUD while a command
    /// runs, replaced in place by its result.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run a command under a progress HUD, then show how it went.",
            discussion: """
                Shows an indefinite, non-dismissible progress HUD naming the command while it runs, then \
                replaces it in place with a success or failure toast carrying the exit status and elapsed \
                time. The command keeps stdin, stdout and stderr; toastctl exits with its status.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "The HUD's alignment: top, center or bottom.", completion: .list(ToastAlignment.allCases.map(\.rawValue)))
        var alignment = ToastAlignment.center
        @Option(help: "The scene.") var scene: String?
        @Option(help: "How long a failure's toast stays: indefinite (until dismissed), or a duration (5s, 2m).")
        var failureDuration = "indefinite"
        @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.") var command: [String]

        func validate() throws {
            if command.isEmpty { throw ValidationError("give the command after --, e.g. toastctl run -- make") }
            guard ToastFields.numberOrName(failureDuration).durationValue != nil else {
                throw ValidationError("--failure-duration: indefinite, or a duration such as 5s or 2m (got '\(failureDuration)')")
            }
        }

        func run() throws {
            let label = Terminal.sanitize(Self.shellQuoted(command))
            let reuseID = "run-\(getpid())"
            // Ends with this connection's source: a killed toastctl leaves no HUD behind.
            let hud = Toast(
                message: label, title: "Running", icon: "⏳", role: .info, alignment: alignment,
                scene: scene ?? Toast.defaultScene, reuseID: reuseID, progress: .indeterminate, dismissible: false,
                invalidation: [.presentationDismissed]
            )
            // The HUD is a courtesy: if toastd is down, or the server on the
            // socket is not to be trusted, the command still runs, and
            // stderr says once why there is no HUD.
            let source = "toastctl-run[\(getpid())]"
            let connection: ToastConnection?
            do {
                connection = try ToastConnection(path: client.socketPath)
            } catch {
                printError("toastctl: no HUD (\(error)); running the command anyway")
                connection = nil
            }
            func send(_ request: Request) -> Bool {
                let reply = try? connection?.request(WireEncoder.request(request), timeout: 2_000)
                return reply.map { (try? WireDecoder.reply($0).get()) != nil } ?? false
            }
            func bind(_ bound: Bool) -> Bool {
                send(.hello(Request.Hello(version: ProtocolInfo.version, client: "toastctl run", source: source, bindSource: bound)))
            }
            if bind(true) { _ = send(.command(.add(hud))) }

            let started = monotonicMilliseconds()
            let outcome = try Self.spawnAndWait(command, forwardingSignals: true)
            let seconds = Double(monotonicMilliseconds() - started) / 1000
            let elapsed = seconds < 10 ? String(Int(seconds * 10)) .inserting(".", fromEnd: 1) + " s" : "\(Int(seconds)) s"

            // The result replaces the HUD in place: an update, not a second
            // add, which would count as a repeat (×2). Should the HUD be gone
            // (a forced clear, a restarted toastd), the result is added anew.
            var patch = ToastPatch(progress: ToastProgress.none, dismissible: true)
            if let signal = outcome.interruptedBy {
                (patch.role, patch.title, patch.icon) = (.warning, "Interrupted", "⏹")
                patch.message = "\(label) (\(Self.signalName(signal)) after \(elapsed))"
            } else if outcome.status == 0 {
                (patch.role, patch.title, patch.icon) = (.success, "Done", "✓")
                patch.message = "\(label) (\(elapsed))"
            } else {
                (patch.role, patch.title, patch.icon) = (.failure, "Failed", "✗")
                patch.message =
                    outcome.notStarted.map { "\(label) did not start: \($0)" }
                    ?? "\(label) exited with status \(outcome.status) (\(elapsed))"
                if outcome.notStarted != nil { patch.title = "Did not start" }
            }
            if connection != nil, patch.role == .failure {
                // A failure goes ahead of every HUD: the HUD goes, and the
                // failure shows at the top, where it stays until dismissed
                // (--failure-duration), never queued behind another run's HUD.
                _ = send(.command(.remove(.reuseID(reuseID, scene: hud.scene))))
                var failure = patch.applied(to: hud)
                failure.invalidation = []
                failure.alignment = .top
                failure.reuseID = nil
                failure.duration = ToastFields.numberOrName(failureDuration).durationValue
                _ = send(.command(.add(failure)))
                _ = bind(false)
            } else if connection != nil {
                if !send(.command(.update(.reuseID(reuseID, scene: hud.scene), patch))) {
                    var result = patch.applied(to: hud)
                    result.invalidation = []
                    _ = send(.command(.add(result)))
                }
                // The result stays after this connection closes: unbind the source.
                _ = bind(false)
            }
            // A command ended by a signal: 128 + N; interrupted but exited: 130 (SIGINT's).
            if outcome.interruptedBy != nil && outcome.status < 128 { throw ExitCode(128 + (outcome.interruptedBy ?? SIGINT)) }
            throw ExitCode(outcome.status)
        }

        static func signalName(_ signal: Int32) -> String {
            switch signal {
            case SIGINT: "SIGINT"
            case SIGTERM: "SIGTERM"
            case SIGHUP: "SIGHUP"
            default: "signal \(signal)"
            }
        }

        struct Outcome {
            /// Its exit status, or 128 + N when signal N ended it (127: not found).
            var status: Int32
            /// SIGINT, SIGTERM or SIGHUP reached toastctl while the command ran.
            var interruptedBy: Int32?
            /// Why it never started (not found, not executable), if it did not.
            var notStarted: String?
        }

        /// The command as a shell would read it back: `sh -c 'exit 3'`.
        static func shellQuoted(_ words: [String]) -> String {
            words.map { word in
                let safe = !word.isEmpty && word.utf8.allSatisfy { byte in
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                        || "_@%+=:,./-".utf8.contains(byte)
                }
                return safe ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
            }.joined(separator: " ")
        }

        /// Runs the command with this process's stdio. With
        /// `forwardingSignals`, SIGINT, SIGTERM and SIGHUP are caught while
        /// it runs: one sent to toastctl alone (`kill`, systemd) is passed on
        /// to the command; one from the terminal already reached the whole
        /// foreground group, the command included, and is not sent twice.
        static func spawnAndWait(_ command: [String], forwardingSignals: Bool = false) throws -> Outcome {
            var watched = sigset_t()
            sigemptyset(&watched)
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGCHLD] { sigaddset(&watched, signal) }
            var previous = sigset_t()
            if forwardingSignals { pthread_sigmask(SIG_BLOCK, &watched, &previous) }
            defer { if forwardingSignals { pthread_sigmask(SIG_SETMASK, &previous, nil) } }

            let pid: pid_t
            switch Spawn.start(command) {
            case .success(let started): pid = started
            case .failure(let error):
                printError("toastctl: cannot run \(command[0]): \(error)")
                return Outcome(status: 127, notStarted: "\(error)")
            }
            var interruptedBy: Int32?
            var status: Int32 = 0
            while true {
                if forwardingSignals {
                    var info = siginfo_t()
                    let signal = sigwaitinfo(&watched, &info)
                    if signal > 0 && signal != SIGCHLD {
                        interruptedBy = interruptedBy ?? signal
                        // SI_KERNEL (0x80): the terminal sent it to the whole group already.
                        if info.si_code != 0x80 { kill(pid, signal) }
                        continue
                    }
                    let reaped = waitpid(pid, &status, WNOHANG)
                    if reaped == pid { break }
                    if reaped < 0 && errno != EINTR { break }
                } else {
                    if waitpid(pid, &status, 0) == pid { break }
                    if errno != EINTR { break }
                }
            }
            let signal = status & 0x7F
            return Outcome(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, interruptedBy: interruptedBy)
        }
    }
}

extension String {
    fileprivate func inserting(_ separator: Character, fromEnd offset: Int) -> String {
        var text = self
        while text.count <= offset { text = "0" + text }
        text.insert(separator, at: text.index(text.endIndex, offsetBy: -offset))
        return text
    }
}

extension JSONValue {
    /// A duration as the wire reads it (`"indefinite"`, `5`), or nil when it is not one.
    var durationValue: ToastDuration? {
        do throws(ToastError) {
            return try WireDecoder.decodeDuration(self, field: "duration")
        } catch {
            return nil
        }
    }
}
