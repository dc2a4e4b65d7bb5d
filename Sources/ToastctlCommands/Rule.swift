// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastKit
import ToastProtocol

extension Toastctl {
    /// `toastctl rule NAME enable|disable|toggle`, as `dunstctl rule NAME toggle`.
    struct Rule: ParsableCommand {
        enum Switch: String, ExpressibleByArgument, CaseIterable {
            case enable, disable, toggle
        }

        static let configuration = CommandConfiguration(
            commandName: "rule",
            abstract: "Switch a named rule on or off, at run time (as dunstctl rule).",
            discussion: """
                A rule in config.toml with `name = "quiet-chat"` can be switched: toastctl rule quiet-chat \\
                disable (enable, toggle). The switch persists across restarts as modes do (a switched-off \\
                rule is the mode `rule-off.NAME`), and survives reloads while the name stays. Without \\
                arguments, the named rules and whether each is on.
                """
        )
        @OptionGroup var client: ClientOptions
        @Argument(help: "The rule's name.", completion: .custom { _, _, _ in Rule.namedRules() }) var name: String?
        @Argument(help: "enable, disable or toggle.") var change: Switch?

        func validate() throws {
            if name != nil && change == nil { throw ValidationError("say what to do with the rule: enable, disable or toggle") }
        }

        func run() throws {
            guard let name, let change else {
                let status = try client.perform(WireEncoder.request(.status))
                client.output(["namedRules": status["namedRules"] ?? []]) {
                    guard case .array(let rules)? = status["namedRules"] else { return "" }
                    return rules.map { rule in
                        Terminal.sanitize(rule["name"]?.stringValue ?? "") + "\t" + (rule["enabled"] == true ? "on" : "off")
                    }.joined(separator: "\n")
                }
                return
            }
            let mode = Request.ModeChange.ruleOffPrefix + name
            let request: Request.ModeChange =
                switch change {
                case .enable: .remove(mode)
                case .disable: .add(mode)
                case .toggle: .toggle(mode)
                }
            let result = try client.perform(WireEncoder.request(.mode(request)))
            client.output(result) {
                guard case .array(let modes)? = result["modes"] else { return "" }
                return name + (modes.contains(.string(mode)) ? " off" : " on")
            }
        }

        /// The named rules, for shell completion.
        static func namedRules() -> [String] {
            guard case .array(let rules)? = ClientOptions.runningStatus()?["namedRules"] else { return [] }
            return rules.compactMap { $0["name"]?.stringValue }
        }
    }
}
