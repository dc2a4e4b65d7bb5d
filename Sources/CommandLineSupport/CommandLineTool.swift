// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// How every toastd tool ends: 0 on success (and for --help and
/// --version), the command's own status when it throws an `ExitCode`, and
/// **2 for a usage error**, with ArgumentParser's message on stderr, in
/// toastd, toastctl, toast-tail and toast-notify alike.
public enum CommandLineTool {
    public static let usageError: Int32 = 2

    public static func main<Command: ParsableCommand>(_: Command.Type, arguments: [String]) -> Never {
        var parsed: ParsableCommand.Type?
        do {
            var command = try Command.parseAsRoot(arguments)
            parsed = type(of: command)
            try command.run()
            Glibc.exit(0)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            // A usage error found once the words were read (a subcommand's
            // own checks): the usage shown is that subcommand's, not the root's.
            if let parsed, parsed != Command.self, Command.exitCode(for: error) == .validationFailure {
                let name = ([Command._commandName] + subcommandPath(to: parsed, from: Command.self)).joined(separator: " ")
                printError("""
                    Error: \(Command.message(for: error))
                    Usage: \(Command.usageString(for: parsed))
                      See '\(name) --help' for more information.
                    """)
                Glibc.exit(usageError)
            }
            exit(Command.self, for: error)
        }
    }

    /// Ends the process for an error `Command` threw, as `main` does: its
    /// `ExitCode` as it is; help and version on stdout with 0; any other
    /// error's message on stderr with ArgumentParser's status, 2 for a
    /// usage error.
    public static func exit<Command: ParsableCommand>(_: Command.Type, for error: any Error) -> Never {
        if let code = error as? ExitCode { Glibc.exit(code.rawValue) }
        let code = Command.exitCode(for: error)
        if code == .success {
            print(Command.fullMessage(for: error))
            Glibc.exit(0)
        }
        printError(Command.fullMessage(for: error))
        Glibc.exit(code == .validationFailure ? usageError : code.rawValue)
    }
}

/// The subcommands' names from `root` down to `target` (without the root's).
private func subcommandPath(to target: ParsableCommand.Type, from root: ParsableCommand.Type) -> [String] {
    for sub in root.configuration.subcommands {
        if sub == target { return [sub._commandName] }
        let below = subcommandPath(to: target, from: sub)
        if !below.isEmpty { return [sub._commandName] + below }
    }
    return []
}

/// Writes a line to stderr at once, unbuffered.
public func printError(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// Writes a line to stdout at once, so a pipe sees each event as it happens.
public func printLine(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}
