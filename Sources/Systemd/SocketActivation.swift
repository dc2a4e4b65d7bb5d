// SPDX-License-Identifier: Apache-2.0
import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// Sockets passed by a service manager (sd_listen_fds(3)): systemd's socket
/// units, or systemd-socket-activate.
public enum SocketActivation {
    public struct ListeningSocket: Sendable, Hashable {
        public var fileDescriptor: Int32
        /// FileDescriptorName= of the socket unit (the unit's name by default).
        public var name: String
    }

    /// What the service manager passed this process.
    public enum Inheritance: Sendable, Equatable {
        /// No LISTEN_FDS: toastd binds its own socket.
        case nothing
        /// The sockets, in the order the service manager passed them.
        case sockets([ListeningSocket])
        /// LISTEN_FDS named another process in LISTEN_PID: a wrapper that
        /// started toastd without `exec`. sd_listen_fds(3) rightly passes
        /// nothing then.
        case passedTo(Int32)
    }

    /// Reads what the service manager passed, once: the LISTEN_* variables
    /// are removed from the environment, so that children do not inherit
    /// them, whichever case this is.
    public static func inherit() -> Inheritance {
        let recipient = foreignRecipient(
            listenFDs: getenv("LISTEN_FDS").map { String(cString: $0) },
            listenPID: getenv("LISTEN_PID").map { String(cString: $0) },
            pid: getpid()
        )
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        if let recipient { return .passedTo(recipient) }
        guard count > 0 else { return .nothing }
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        return .sockets(
            (0..<count).map { index in
                let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
                return ListeningSocket(fileDescriptor: SD_LISTEN_FDS_START + index, name: name)
            })
    }

    static func foreignRecipient(listenFDs: String?, listenPID: String?, pid: Int32) -> Int32? {
        guard let listenFDs, let count = Int(listenFDs), count > 0,
            let listenPID, let recipient = Int32(listenPID), recipient > 0, recipient != pid
        else { return nil }
        return recipient
    }

    /// Whether `fd` is a listening Unix stream socket (sd_is_socket_unix(3)).
    public static func isListeningUnixStream(_ fd: Int32) -> Bool {
        sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
    }
}
