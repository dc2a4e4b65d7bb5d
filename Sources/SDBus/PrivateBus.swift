// SPDX-License-Identifier: Apache-2.0
import Synchronization
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// A session bus of its own (`dbus-daemon --config-file`), for the tests and
/// benchmarks that must never touch the host's bus. Its service directory is
/// `directory/services`, left empty, so no other notification server can be
/// activated on it. The daemon is stopped when this goes, and the
/// directory, which it made, removed.
///
/// The policy is a session bus's: anyone may own a name, send and receive
/// (without `<allow eavesdrop="true"/>` the bus refuses to deliver replies).
public final class PrivateBus: Sendable {
    /// The address dbus-daemon printed (with its guid).
    public let address: String
    public let directory: String
    public let pid: pid_t

    /// The address without the bus's guid, as systemd gives it: a client may
    /// connect to a restarted bus at the same path.
    public var pathAddress: String { "unix:path=\(directory)/bus" }

    /// Whether the directory goes with this bus: it does until a bus
    /// restarted in it takes it over (`restarted()`).
    private let ownsDirectory: Mutex<Bool>

    /// Starts a bus in a new directory (mode 0700), and returns once it
    /// accepts connections.
    public convenience init() throws {
        let directory: String
        do {
            directory = try TemporaryDirectory(prefix: "toastd-bus").path
        } catch {
            throw PrivateBusError("\(error)")
        }
        do {
            try self.init(directory: directory, owned: true)
        } catch {
            Self.remove(directory)
            throw error
        }
    }

    /// A session bus restarting under its clients: this bus's daemon
    /// stopped, and a new one at the same path, in the same directory,
    /// which the new bus now owns (it removes it when it goes; this one no
    /// longer does).
    public func restarted() throws -> PrivateBus {
        kill(pid, SIGTERM)
        for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
        let owned = ownsDirectory.withLock { owned in
            defer { owned = false }
            return owned
        }
        do {
            return try PrivateBus(directory: directory, owned: owned)
        } catch {
            ownsDirectory.withLock { $0 = owned }
            throw error
        }
    }

    private init(directory: String, owned: Bool) throws {
        self.directory = directory
        ownsDirectory = Mutex(owned)
        mkdir(directory + "/services", 0o700)
        let config = directory + "/bus.conf"
        let started = directory + "/started"
        // dbus-daemon's output is appended to this file: in a directory used
        // before, the earlier bus's lines would be read as this one's (its
        // address and pid), and this daemon would never be stopped.
        unlink(started)
        try Self.write(Self.configuration(directory: directory), to: config)
        var options = Spawn.Options()
        options.stdout = started
        let launcher: pid_t
        switch Spawn.start(["/usr/bin/dbus-daemon", "--config-file=\(config)", "--fork", "--print-address=1", "--print-pid=1"], options) {
        case .success(let pid): launcher = pid
        case .failure(let error): throw PrivateBusError("cannot start dbus-daemon: \(error)")
        }
        var status: Int32 = 0
        while waitpid(launcher, &status, 0) < 0 && errno == EINTR {}
        let lines = (Self.read(started) ?? "").split(separator: "\n").map(String.init)
        guard lines.count >= 2, let pid = pid_t(lines[1]) else { throw PrivateBusError("dbus-daemon did not start") }
        address = lines[0]
        self.pid = pid
        for _ in 0..<500 where access(directory + "/bus", F_OK) != 0 { usleep(10_000) }
    }

    deinit {
        kill(pid, SIGTERM)
        if ownsDirectory.withLock({ $0 }) { Self.remove(directory) }
    }

    /// The directory, with what the bus left in it and what a test put
    /// there (its service files).
    private static func remove(_ directory: String) {
        TemporaryDirectory.removeTree(directory)
    }

    public static func configuration(directory: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><type>session</type><listen>unix:path=\(directory)/bus</listen>
        <servicedir>\(directory)/services</servicedir><auth>EXTERNAL</auth>
        <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
        </busconfig>
        """
    }

    private static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PrivateBusError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw PrivateBusError("cannot write \(path)")
        }
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4_096)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : nil
    }
}

public struct PrivateBusError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
