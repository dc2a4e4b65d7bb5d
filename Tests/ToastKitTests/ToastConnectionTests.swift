// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

@testable import ToastKit

@Suite("ToastConnection")
struct ToastConnectionTests {
    /// A connection to a Unix socket in a fresh directory, and the peer's
    /// end of it (the caller closes it).
    static func connected() throws -> (connection: ToastConnection, peer: Int32) {
        // The socket's directory goes once the two ends are connected.
        let directory = try TemporaryDirectory(prefix: "toastconn")
        defer { directory.remove() }
        let path = directory.path + "/s"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(fd, 4) == 0)
        defer { close(fd) }
        let connection = try ToastConnection(path: path)
        let peer = accept(fd, nil, nil)
        try #require(peer >= 0)
        return (connection, peer)
    }

    /// Lines come out whole however they arrive: a line of 200,000 bytes
    /// over many reads (searched once, from where the last read's search
    /// ended), several lines in one read, and a remainder kept past the
    /// buffer's compaction.
    @Test func linesComeOutWholeHoweverTheReadsCutThem() throws {
        let (connection, peer) = try Self.connected()
        defer { close(peer) }
        let lines: [[UInt8]] = [
            Array("short".utf8), Array(repeating: UInt8(ascii: "x"), count: 200_000), Array("after".utf8), [],
            Array(repeating: UInt8(ascii: "y"), count: 70_000), Array("{\"ok\":true}".utf8), Array("last".utf8),
        ]
        let stream = Array(lines.map { $0 + [UInt8(ascii: "\n")] }.joined())
        let sizes = [1, 7, 4_096, 65_536, 3, 30_000]
        var read: [[UInt8]] = []
        var offset = 0
        var turn = 0
        while offset < stream.count {
            let end = min(offset + sizes[turn % sizes.count], stream.count)
            let written = stream[offset..<end].withUnsafeBytes { write(peer, $0.baseAddress, $0.count) }
            try #require(written == end - offset)
            offset = end
            turn += 1
            // One read takes this piece (no more is on the socket), then every line it completed.
            try connection.receive()
            while let line = connection.bufferedLine() { read.append(line) }
        }
        #expect(read.count == lines.count)
        #expect(read == lines)
    }

    /// Writing to a daemon that hung up is an error the caller sees, not a
    /// SIGPIPE that kills the process (which would end this test run).
    @Test func writingToAClosedPeerThrowsInsteadOfRaisingSIGPIPE() throws {
        let (connection, peer) = try Self.connected()
        close(peer)
        var failure: ToastConnection.Failure?
        for _ in 0..<100 where failure == nil {
            do {
                try connection.sendLine(Array(repeating: UInt8(ascii: "x"), count: 65_536))
            } catch {
                failure = error
            }
        }
        guard case .io(let message) = failure else {
            Issue.record("expected an I/O failure, got \(String(describing: failure))")
            return
        }
        #expect(message.contains("Broken pipe") || message.contains("reset"), "\(message)")
    }
}
