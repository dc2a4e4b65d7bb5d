// SPDX-License-Identifier: Apache-2.0
/// Where toastd keeps its state by default: `$STATE_DIRECTORY` (what
/// systemd's `StateDirectory=` sets), else `$XDG_STATE_HOME/toastd`, else
/// `$HOME/.local/state/toastd` (the XDG base directory rules), else, with
/// neither set, `$XDG_RUNTIME_DIR/toastd-state`: the user's own directory,
/// though it lasts only as long as the session. Never a shared path such
/// as /tmp, where another user could have put a directory first; with none
/// of these set there is no default (`nil`), and toastd says so.
public enum StateLocation {
    public static func resolve(environment: [String: String]) -> String? {
        if let given = environment["STATE_DIRECTORY"]?.split(separator: ":").first, given.hasPrefix("/") {
            return String(given)
        }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/toastd" }
        if let home = environment["HOME"], home.hasPrefix("/"), home != "/" { return home + "/.local/state/toastd" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/toastd-state" }
        return nil
    }
}
