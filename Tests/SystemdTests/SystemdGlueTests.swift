// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import Systemd

/// The Systemd module against the real libsystemd, in process. (sd_notify
/// and the watchdog read the environment, which tests in one process share;
/// those are tested through real toastd processes in IntegrationTests.)
@Suite("libsystemd glue")
struct SystemdGlueTests {
    static func unixSocket(_ type: Int32, listening: Bool) throws -> (fd: Int32, path: String) {
        let path = FileManager.default.temporaryDirectory.appending(path: "sd-\(UUID().uuidString.prefix(8)).sock").path
        let fd = socket(AF_UNIX, type, 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        if listening { try #require(listen(fd, 1) == 0) }
        return (fd, path)
    }

    /// What toastd checks an inherited socket with before it serves it.
    @Test func onlyAListeningUnixStreamSocketPasses() throws {
        let listening = try Self.unixSocket(Int32(SOCK_STREAM.rawValue), listening: true)
        let bound = try Self.unixSocket(Int32(SOCK_STREAM.rawValue), listening: false)
        let datagram = try Self.unixSocket(Int32(SOCK_DGRAM.rawValue), listening: false)
        defer {
            for socket in [listening, bound, datagram] {
                close(socket.fd)
                unlink(socket.path)
            }
        }
        #expect(SocketActivation.isListeningUnixStream(listening.fd))
        #expect(!SocketActivation.isListeningUnixStream(bound.fd))
        #expect(!SocketActivation.isListeningUnixStream(datagram.fd))
        #expect(!SocketActivation.isListeningUnixStream(-1))
    }

    @Test func withoutLISTEN_FDSNothingIsInherited() {
        #expect(ProcessInfo.processInfo.environment["LISTEN_FDS"] == nil)
        #expect(SocketActivation.inherit() == .nothing)
    }

    /// LISTEN_FDS meant for another process: toastd says so, since it then
    /// serves no inherited socket.
    @Test func socketsPassedToAnotherProcessAreNamed() {
        #expect(SocketActivation.foreignRecipient(listenFDs: "1", listenPID: "41", pid: 42) == 41)
        #expect(SocketActivation.foreignRecipient(listenFDs: "1", listenPID: "42", pid: 42) == nil, "they are ours")
        #expect(SocketActivation.foreignRecipient(listenFDs: nil, listenPID: "41", pid: 42) == nil)
        #expect(SocketActivation.foreignRecipient(listenFDs: "0", listenPID: "41", pid: 42) == nil, "none passed")
        #expect(SocketActivation.foreignRecipient(listenFDs: "1", listenPID: nil, pid: 42) == nil)
        #expect(SocketActivation.foreignRecipient(listenFDs: "1", listenPID: "x", pid: 42) == nil)
        #expect(SocketActivation.foreignRecipient(listenFDs: "1", listenPID: "-1", pid: 42) == nil)
    }

    /// JOURNAL_STREAM names stderr's device and inode under systemd; only a
    /// match means stderr is the journal.
    @Test func stderrIsTheJournalOnlyWhenJournalStreamNamesIt() {
        var status = stat()
        #expect(fstat(STDERR_FILENO, &status) == 0)
        let matching = "\(UInt64(status.st_dev)):\(UInt64(status.st_ino))"
        #expect(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": matching]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(UInt64(status.st_dev)):\(UInt64(status.st_ino) + 1)"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: [:]))
    }
}
