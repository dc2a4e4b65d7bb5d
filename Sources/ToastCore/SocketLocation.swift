/// Where toastd listens and clients connect: `--socket`, else
/// `$TOASTD_SOCKET`, else `$XDG_RUNTIME_DIR/toastd.sock`, else
/// `/tmp/toastd-$UID/toastd.sock` (a private directory toastd creates).
public enum SocketLocation {
    public static func resolve(explicit: String?, environment: [String: String], uid: UInt32) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["TOASTD_SOCKET"], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/toastd.sock" }
        return fallbackDirectory(uid: uid) + "/toastd.sock"
    }

    public static func fallbackDirectory(uid: UInt32) -> String { "/tmp/toastd-\(uid)" }
}
