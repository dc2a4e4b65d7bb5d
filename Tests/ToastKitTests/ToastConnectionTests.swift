import Foundation
import Testing

@testable import ToastKit

@Suite("ToastConnection")
struct ToastConnectionTests {
    /// A listening Unix socket in a fresh directory; returns its path and fd.
    static func listener() throws -> (path: String, fd: Int32) {
        let directory = FileManager.default.temporaryDirectory.appending(path: "toastconn-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appending(path: "s").path
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
        return (path, fd)
    }

    /// Writing to a daemon that hung up is an error the caller sees, not a
    /// SIGPIPE that kills the process (which would end this test run).
    @Test func writingToAClosedPeerThrowsInsteadOfRaisingSIGPIPE() throws {
        let (path, listening) = try Self.listener()
        defer { close(listening) }
        let connection = try ToastConnection(path: path)
        let accepted = accept(listening, nil, nil)
        try #require(accepted >= 0)
        close(accepted)
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
