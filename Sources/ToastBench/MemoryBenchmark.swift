// SPDX-License-Identifier: Apache-2.0
import ToastCore
#if canImport(Glibc)
import Glibc
#endif

/// toastd's resident memory idle and with many toasts waiting.
public enum MemoryBenchmark {
    public struct Result: Sendable {
        /// KiB: PSS, anonymous, RSS.
        public var idle: (pss: Int, anonymous: Int, rss: Int)
        /// The same with each count of toasts queued, in order.
        public var queued: [(count: Int, memory: (pss: Int, anonymous: Int, rss: Int))]
    }

    /// Adds indefinite toasts to one stack (three shown, the rest queued)
    /// until each of `counts` is held, and reads PSS, anonymous memory and RSS at each.
    public static func run(server: ServerUnderTest, counts: [Int]) throws -> Result {
        usleep(300_000)
        let idle = ChildProcess.smaps(of: server.process.pid)
        var held = 0
        var queued: [(count: Int, memory: (pss: Int, anonymous: Int, rss: Int))] = []
        for count in counts {
            var lines: [UInt8] = []
            for index in held..<count {
                lines += RequestLine.add(Toast(
                    message: "deploy \(index) waiting for approval", title: "Deploy", role: .info, duration: .indefinite, source: "bench"
                ))
            }
            _ = try IngestBenchmark.run(socket: server.socket, batches: [lines], perConnection: count - held)
            held = count
            usleep(300_000)
            queued.append((count, ChildProcess.smaps(of: server.process.pid)))
        }
        return Result(idle: idle, queued: queued)
    }
}
