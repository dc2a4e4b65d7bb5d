import ArgumentParser
import CommandLineSupport
import ToastCore
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
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
}
