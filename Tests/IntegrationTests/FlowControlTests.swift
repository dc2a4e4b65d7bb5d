// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastKit
import ToastCore

/// A client that writes requests and does not read its replies (PROTOCOL.md,
/// 1.3), against the real toastd over a real socket.
@Suite("Clients that do not read")
struct FlowControlTests {
    /// A Unix stream socket to the daemon, non-blocking.
    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(connected == 0, "connect: errno \(errno)")
        return fd
    }

    /// Writes as many of `count` lines as the socket takes without
    /// blocking, from `from` on; how many it took in all.
    static func writeWhileItTakes(_ fd: Int32, _ line: [UInt8], from: Int, count: Int) -> Int {
        var written = from
        var offset = 0
        while written < count {
            let sent = line[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { break }
            offset += sent
            if offset == line.count {
                offset = 0
                written += 1
            }
        }
        precondition(offset == 0 || written == count, "a line was cut; the test sends lines whole")
        return written
    }

    /// toastd stops reading a client whose replies pile up unread (so it
    /// holds a bounded amount for it), serves everyone else meanwhile, and
    /// reads it again once it reads: every request is answered.
    @Test func aClientThatDoesNotReadIsNotReadUntilItDoes() throws {
        let daemon = try DaemonFixture(arguments: ["--ephemeral"])
        let other = try daemon.connect()
        let text = String(repeating: "z", count: 1_000)
        for index in 0..<20 {
            _ = try other.request(["op": "add", "toast": ["message": .string("\(index) \(text)"), "duration": "indefinite"]], timeout: 5_000)
        }
        let fd = try Self.connect(daemon.socket)
        defer { close(fd) }
        // A list of twenty toasts, about 22 KB a reply, for 2 KB of request
        // (JSON may be padded): unbounded, 2,000 of them would hold toastd to
        // about 44 MB, ten times the write buffer's high mark.
        let line = Array(#"{"op":"list"}"#.utf8) + [UInt8](repeating: 32, count: 1_986) + [10]
        let total = 2_000
        var written = Self.writeWhileItTakes(fd, line, from: 0, count: total)
        // Until toastd stops reading, it keeps taking lines: wait until it
        // took none for a while.
        var stalled = 0
        for _ in 0..<100 where stalled < 5 {
            usleep(100_000)
            let more = Self.writeWhileItTakes(fd, line, from: written, count: total)
            stalled = more == written ? stalled + 1 : 0
            written = more
        }
        #expect(written < total / 2, "toastd kept reading a client that reads nothing: \(written) requests taken")
        #expect(stalled >= 5)

        // Everyone else is served meanwhile.
        #expect(try other.request(["op": "status"], timeout: 5_000)["ok"] == true)

        // Once the client reads, toastd reads it again: every request is answered.
        let fdCopy = fd
        let answered = Locked(0)
        let reader = Thread {
            var replies = 0
            replies = Self.readLines(fdCopy, upTo: total)
            answered.withLock { $0 = replies }
        }
        reader.start()
        while written < total {
            written = Self.writeWhileItTakes(fd, line, from: written, count: total)
            if written < total { usleep(1_000) }
        }
        while !reader.isFinished { usleep(10_000) }
        #expect(answered.withLock { $0 } == total)
    }

    /// Reads a non-blocking socket until `count` lines came, or nothing came
    /// for 10 s; how many came.
    static func readLines(_ fd: Int32, upTo count: Int) -> Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var lines = 0
        var idle = 0
        while lines < count, idle < 400 {
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got > 0 {
                lines += buffer[..<got].count { $0 == 10 }
                idle = 0
            } else {
                idle += 1
                usleep(25_000)
            }
        }
        return lines
    }

    /// toastd's resident memory, from /proc.
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The review's attack: 10,000 toasts, and one connection that pipelines
    /// `list`s in one read and never reads. Flow control stopped reading,
    /// but every reply to what was read was produced: toastd grew from 37 to
    /// 405 MiB. Now the requests after the bound wait, and the growth stays
    /// near the bound (4 MiB of replies and one reply). Once the client
    /// reads, every request is answered.
    @Test func pipelinedListsToAClientThatDoesNotReadAreBounded() throws {
        let daemon = try DaemonFixture(arguments: ["--ephemeral"])
        let adder = try Self.connect(daemon.socket)
        defer { close(adder) }
        let text = String(repeating: "y", count: 200)
        var batch: [UInt8] = []
        for index in 0..<10_000 {
            batch += Array(#"{"op":"add","toast":{"message":"\#(index) \#(text)","duration":"indefinite"}}"#.utf8) + [10]
        }
        // Written and read back in turns, so that the adder's own replies never pile up.
        var sent = 0
        var replies = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while replies < 10_000 {
            if sent < batch.count {
                let count = batch[sent...].withUnsafeBytes { send(adder, $0.baseAddress, min($0.count, 1 << 16), Int32(MSG_NOSIGNAL)) }
                if count > 0 { sent += count }
            }
            let got = buffer.withUnsafeMutableBytes { recv(adder, $0.baseAddress, $0.count, 0) }
            if got > 0 { replies += buffer[..<got].count { $0 == 10 } } else { usleep(1_000) }
        }
        let pid = daemon.process.processIdentifier
        let before = Self.residentKiB(pid)

        let fd = try Self.connect(daemon.socket)
        defer { close(fd) }
        // Pages of 1,000 toasts, about 330 KB each: 300 of them unbounded
        // would be 100 MB (the review's 30 lists of 3.3 MB before pages).
        let lists = Array(repeating: Array(#"{"op":"list"}"#.utf8) + [10], count: 300).flatMap { $0 }
        #expect(lists.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == lists.count)
        var peak = before
        for _ in 0..<30 {
            usleep(100_000)
            peak = max(peak, Self.residentKiB(pid))
        }
        let grownMiB = (peak - before) / 1_024
        // The bound is 4 MiB of replies unread, plus one reply and what the
        // kernel's socket buffer took.
        #expect(grownMiB < 40, "toastd grew by \(grownMiB) MiB for a client that reads nothing")
        // Others are served meanwhile.
        #expect(try daemon.connect().request(["op": "status"], timeout: 5_000)["ok"] == true)

        // Once it reads, all 300 are answered, in full.
        #expect(Self.readLines(fd, upTo: 300) == 300)
    }
}
