// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastKit
import ToastProtocol
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

extension Toastctl {
    /// `toastctl menu`: pick an action of a shown toast with dmenu, rofi,
    /// fuzzel or wofi, as `makoctl menu` and `dunstctl context` do.
    struct Menu: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "menu",
            abstract: "Pick an action of a shown toast with a menu program (dmenu, rofi, fuzzel, wofi), and invoke it.",
            discussion: """
                Each line offered is `ID: LABEL — TEXT`, newest toast first. Without --dmenu it uses the \\
                first found of fuzzel --dmenu, wofi --dmenu, rofi -dmenu, bemenu and dmenu. Choosing \\
                nothing (Escape) invokes nothing and exits 1.
                """
        )
        @OptionGroup var client: ClientOptions
        @Option(help: ArgumentHelp("The menu program and its arguments, read from its stdin, the choice on its stdout.", valueName: "command"))
        var dmenu: String?

        static let menus = [["fuzzel", "--dmenu"], ["wofi", "--dmenu"], ["rofi", "-dmenu"], ["bemenu"], ["dmenu"]]

        func run() throws {
            let result = try client.listAll(EventFilter())
            guard let snapshot = try? WireDecoder.decodeSnapshot(result) else { throw ExitCode(1) }
            let shown = snapshot.toasts.filter { $0.state == .shown }.sorted { ($0.presentedAt ?? 0, $0.id) > ($1.presentedAt ?? 0, $1.id) }
            var choices: [(line: String, id: ToastID, action: String)] = []
            for record in shown {
                for action in record.toast.actions {
                    let line = "\(record.id): \(Terminal.sanitize(action.label)) — \(Listing.text(record.toast))"
                    choices.append((String(line.prefix(200)), record.id, action.id))
                }
            }
            guard !choices.isEmpty else {
                printError("toastctl: no shown toast has an action")
                throw ExitCode(1)
            }
            let command = try dmenu.map { ["/bin/sh", "-c", $0] } ?? Self.findMenu()
            let input = choices.map(\.line).joined(separator: "\n") + "\n"
            let chosen = try Self.ask(command, input: input)
            guard let choice = choices.first(where: { $0.line == chosen }) else {
                if !chosen.isEmpty { printError("toastctl: '\(Terminal.sanitize(chosen))' is not one of the choices") }
                throw ExitCode(1)
            }
            try client.performPrintingID(.command(.invoke(.id(choice.id), actionID: choice.action)))
        }

        static func findMenu() throws -> [String] {
            let path = (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin").split(separator: ":")
            for menu in menus where path.contains(where: { access("\($0)/\(menu[0])", X_OK) == 0 }) { return menu }
            printError("toastctl: no menu program found (fuzzel, wofi, rofi, bemenu, dmenu); give one with --dmenu")
            throw ExitCode(1)
        }

        /// Runs the menu with `input` on its stdin; its first line of output.
        static func ask(_ command: [String], input: String) throws -> String {
            var toMenu: [Int32] = [0, 0]
            var fromMenu: [Int32] = [0, 0]
            guard pipe(&toMenu) == 0, pipe(&fromMenu) == 0 else { throw ExitCode(1) }
            for fd in [toMenu[1], fromMenu[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            var options = Spawn.Options()
            options.stdinDescriptor = toMenu[0]
            options.stdoutDescriptor = fromMenu[1]
            let started = Spawn.start(command, options)
            close(toMenu[0])
            close(fromMenu[1])
            guard case .success(let pid) = started else {
                printError("toastctl: cannot run \(command.joined(separator: " "))")
                throw ExitCode(1)
            }
            let bytes = Array(input.utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(toMenu[1], $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                written += count
            }
            close(toMenu[1])
            var output: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while output.count < 65_536 {
                let count = chunk.withUnsafeMutableBytes { read(fromMenu[0], $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output += chunk[..<count]
            }
            close(fromMenu[0])
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return String(decoding: output.prefix { $0 != 0x0A }, as: UTF8.self)
        }
    }
}
