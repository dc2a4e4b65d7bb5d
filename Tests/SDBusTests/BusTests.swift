// SPDX-License-Identifier: Apache-2.0
import Synchronization
import Testing

@testable import SDBus

#if canImport(Glibc)
import Glibc
#endif

/// The wrapper against real sd-bus and a real dbus-daemon of its own.
@Suite("SDBus: messages and calls on a private bus", .serialized)
struct BusTests {
    static let hasDaemon = access("/usr/bin/dbus-daemon", X_OK) == 0

    @Test("every basic type and container written is read back as written", .enabled(if: hasDaemon))
    func roundTripInProcess() throws {
        let daemon = try PrivateBus()
        let bus = try Bus.connect(address: daemon.address)
        let message = try bus.methodCall(destination: "org.example", path: "/", interface: "org.example", member: "M")
        try message.append("héllo\u{202E}")
        try message.append(UInt32.max)
        try message.append(Int32.min)
        try message.append(UInt8(7))
        try message.append(true)
        try message.container("a", "s") { for word in ["a", "", "b"] { try message.append(word) } }
        try message.container("a", "{sv}") {
            try message.appendEntry("n", "i") { try message.append(Int32(-3)) }
            try message.appendEntry("bytes", "ay") { try [UInt8]([1, 2, 255]).withUnsafeBytes { try message.append(bytes: $0) } }
        }
        try message.seal()

        #expect(try message.readString() == "héllo\u{202E}")
        #expect(try message.read(UInt32.self) == .max)
        #expect(try message.read(Int32.self) == .min)
        #expect(try message.read(UInt8.self) == 7)
        #expect(try message.read(Bool.self))
        try message.enter("a", "s")
        var words: [String] = []
        while !message.atEnd { words.append(try message.readString()) }
        message.exitContainer()
        #expect(words == ["a", "", "b"])
        try message.enter("a", "{sv}")
        #expect(try message.enterIfPresent("e", "sv"))
        #expect(try message.readString() == "n")
        #expect(message.peek()?.type == "v")
        #expect(message.peek()?.contents == "i")
        try message.skip("v")
        message.exitContainer()
        #expect(try message.enterIfPresent("e", "sv"))
        #expect(try message.readString() == "bytes")
        try message.enter("v", "ay")
        #expect(try message.readBytes() == [1, 2, 255])
        message.exitContainer()
        message.exitContainer()
        #expect(try !message.enterIfPresent("e", "sv"), "the array ends")
        message.exitContainer()
        #expect(message.atEnd)
    }

    @Test("reading the wrong type is a typed error naming the type expected", .enabled(if: hasDaemon))
    func wrongType() throws {
        let daemon = try PrivateBus()
        let bus = try Bus.connect(address: daemon.address)
        let message = try bus.methodCall(destination: "org.example", path: "/", interface: "org.example", member: "M")
        try message.append(UInt32(5))
        try message.seal()
        #expect(throws: BusReadError(expected: "s")) { try message.readString() }
        #expect("\(BusReadError(expected: "s"))" == "expected a string")
        #expect(try message.read(UInt32.self) == 5, "a failed read consumes nothing")
        #expect(throws: BusReadError(expected: "u")) { try message.read(UInt32.self) }
    }

    @Test("a served object answers calls, errors and signals between two connections", .enabled(if: hasDaemon))
    func serveAndCall() throws {
        let daemon = try PrivateBus()
        let server = try Bus.connect(address: daemon.address)
        #expect(try server.requestName("org.example.Echo") == .owned)
        let other = try Bus.connect(address: daemon.address)
        #expect(try other.requestName("org.example.Echo") == .taken)
        try server.serve(path: "/echo") { call in
            guard call.isMethodCall(interface: "org.example.Echo", member: "Echo") else { return false }
            guard let text = try? call.readString(), !text.isEmpty else {
                call.replyError(name: "org.example.Error.Empty", message: "nothing to echo")
                return true
            }
            guard let reply = try? call.makeReturn() else { return false }
            try? reply.append(text + text)
            try? server.send(reply)
            if let signal = try? server.signal(path: "/echo", interface: "org.example.Echo", member: "Echoed") {
                try? signal.append(text)
                try? server.send(signal)
            }
            return true
        }
        var heard: [String] = []
        try other.onSignal(interface: "org.example.Echo", member: "Echoed") { heard.append((try? $0.readString()) ?? "?") }
        // The server answers from its own thread, as toastd's loop does.
        let stop = Mutex(false)
        let serving = Thread { while !stop.withLock({ $0 }) { try? server.processAll(); usleep(1_000) } }
        defer { stop.withLock { $0 = true }; serving.join() }

        let call = try other.methodCall(destination: "org.example.Echo", path: "/echo", interface: "org.example.Echo", member: "Echo")
        try call.append("ab")
        let reply = try other.call(call, timeout: 5_000_000)
        #expect(try reply.readString() == "abab")
        #expect(reply.sender?.hasPrefix(":") == true, "replies come from the server's unique name")

        let empty = try other.methodCall(destination: "org.example.Echo", path: "/echo", interface: "org.example.Echo", member: "Echo")
        try empty.append("")
        #expect(throws: BusCallError.self) { try other.call(empty, timeout: 5_000_000) }
        do {
            _ = try other.call(empty, timeout: 5_000_000)
        } catch let error as BusCallError {
            #expect(error.name == "org.example.Error.Empty")
            #expect(error.message == "nothing to echo")
        }
        for _ in 0..<1_000 where heard.isEmpty {
            try other.processAll()
            usleep(5_000)
        }
        #expect(heard == ["ab"])
    }
}

/// A thread that runs a closure, to join.
final class Thread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let me = Unmanaged<Thread>.fromOpaque(argument!).takeRetainedValue()
            me.body()
            return nil
        }, box)
    }

    func join() { pthread_join(thread, nil) }
}

/// The private bus the tests and benchmarks run on.
@Suite("SDBus: a private bus", .serialized)
struct PrivateBusTests {
    /// Whether `pid` runs: not gone, and not a zombie waiting for init to
    /// reap it (a dbus-daemon forks away from its launcher).
    static func isRunning(_ pid: pid_t) -> Bool {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = read(fd, &bytes, bytes.count)
        guard count > 0, let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
        // "pid (comm) S ...": the state follows the name.
        return bytes[close + 2] != UInt8(ascii: "Z")
    }

    static func waitUntilGone(_ pid: pid_t) -> Bool {
        for _ in 0..<500 where isRunning(pid) { usleep(10_000) }
        return !isRunning(pid)
    }

    /// A bus restarted in the directory of one that stopped (a test of the
    /// bridge's reconnection does this) is a daemon of its own: its pid and
    /// address are the new daemon's, and letting go of it stops it. It
    /// takes the directory over: letting go of the first bus leaves the
    /// second's socket, and the directory goes with the second.
    @Test(.enabled(if: BusTests.hasDaemon)) func aBusRestartedInTheSameDirectoryIsItsOwnAndStops() throws {
        var first: PrivateBus? = try PrivateBus()
        let directory = first!.directory
        let firstPID = first!.pid
        let firstAddress = first!.address
        var second: PrivateBus? = try first!.restarted()
        #expect(Self.waitUntilGone(firstPID), "the first bus's daemon stopped")
        #expect(second!.pathAddress == first!.pathAddress)
        first = nil
        #expect(access(directory + "/bus", F_OK) == 0, "the second bus's socket outlives the first bus")

        let secondPID = second!.pid
        #expect(secondPID != firstPID)
        #expect(second!.address != firstAddress, "a new daemon has a guid of its own")
        #expect(Self.isRunning(secondPID))
        _ = try Bus.connect(address: second!.address)
        second = nil
        #expect(Self.waitUntilGone(secondPID), "the restarted bus stops when it goes")
        #expect(access(directory, F_OK) != 0, "the directory goes with the bus that owns it")
    }

    /// A bus leaves nothing behind in /tmp.
    @Test(.enabled(if: BusTests.hasDaemon)) func aBusRemovesItsDirectory() throws {
        var bus: PrivateBus? = try PrivateBus()
        let directory = bus!.directory
        #expect(access(directory + "/bus", F_OK) == 0)
        bus = nil
        #expect(access(directory, F_OK) != 0)
    }
}
