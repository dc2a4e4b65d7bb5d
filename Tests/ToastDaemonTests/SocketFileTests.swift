// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import ToastDaemon

/// `SocketFile.hasPendingConnection` against a real listening socket.
@Suite("A listening socket's waiting connection")
struct SocketFileTests {
    @Test func aConnectionWaitsUntilItIsAccepted() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "toastd-pending-\(UUID().uuidString.prefix(8)).sock").path
        defer { unlink(path) }
        let listener = try Self.socket(), client = try Self.socket()
        defer {
            close(listener)
            close(client)
        }
        var address = Self.address(path)
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        try #require(withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) } } == 0)
        try #require(listen(listener, 4) == 0)
        #expect(!SocketFile.hasPendingConnection(listener), "nobody has connected")

        try #require(withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) } } == 0)
        #expect(SocketFile.hasPendingConnection(listener), "a client waits to be accepted")

        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        close(accepted)
        #expect(!SocketFile.hasPendingConnection(listener), "accepted, nobody waits")
    }

    static func socket() throws -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        return fd
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        return address
    }
}
