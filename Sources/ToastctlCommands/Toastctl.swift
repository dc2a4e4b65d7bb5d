// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

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
            Run.self, History.self, Restore.self, Count.self, Menu.self, Rule.self,
        ]
    )

    public init() {}

    /// Runs toastctl with usage errors mapped to exit status 2.
    public static func main(arguments: [String]) -> Never {
        if let quick = QuickAdd(arguments: arguments) {
            do {
                try Add.add(quick.request, wait: false, timeout: nil, client: quick)
                Glibc.exit(0)
            } catch {
                // As the parsed path ends: the message on stderr, and its status.
                CommandLineTool.exit(Toastctl.self, for: error)
            }
        }
        CommandLineTool.main(Toastctl.self, arguments: arguments)
    }
}
