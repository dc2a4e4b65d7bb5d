// SPDX-License-Identifier: Apache-2.0
/// Where toastd listens and clients connect: `--socket`, else
/// `$TOASTD_SOCKET`, else `$XDG_RUNTIME_DIR/toastd.sock`, else
/// `/tmp/toastd-$UID/toastd.sock` (a private directory toastd creates).
public enum SocketLocation {
    public static func resolve(explicit: String?, environment: [String: String], uid: UInt32) -> String {
        resolve(explicit: explicit, variable: { environment[$0] }, uid: uid)
    }

    /// The same, reading variables one at a time (a one-shot client asks
    /// `getenv` for two names rather than copying its whole environment).
    public static func resolve(explicit: String?, variable: (String) -> String?, uid: UInt32) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = variable("TOASTD_SOCKET"), !path.isEmpty { return path }
        if let runtime = variable("XDG_RUNTIME_DIR"), !runtime.isEmpty { return runtime + "/toastd.sock" }
        return fallbackDirectory(uid: uid) + "/toastd.sock"
    }

    public static func fallbackDirectory(uid: UInt32) -> String { "/tmp/toastd-\(uid)" }
}
