// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastProtocol

/// Acknowledged requests per second: every connection writes its whole
/// batch of add lines without waiting (pipelined) while a second thread
/// counts the replies; the clock stops at the last reply. An echo server
/// "acknowledges" by echoing the line, so the same client measures the
/// floor of the socket and framing, and toastd's own work shows as the ratio.
public enum IngestBenchmark {
    public struct Result: Sendable {
        public var requests: Int
        public var seconds: Double
        public var errors: Int
        public var perSecond: Double { Double(requests) / seconds }
    }

    public static func run(socket: String, connections: Int, perConnection: Int, workload: Workload = Workload()) throws -> Result {
        try run(socket: socket, batches: (0..<connections).map { workload.batch(stream: $0, count: perConnection) }, perConnection: perConnection)
    }

    /// Sends each batch (of `perConnection` lines) on its own connection.
    public static func run(socket: String, batches: [[UInt8]], perConnection: Int) throws -> Result {
        let connections = batches.count
        let sockets = try (0..<connections).map { _ in try LineSocket(path: socket) }
        let outcome = Locked((errors: 0, failures: [String](), finish: UInt64(0)))
        let start = monotonicNanoseconds()
        onThreads(connections * 2) { index in
            let connection = sockets[index / 2]
            if index % 2 == 0 {
                do { try connection.write(batches[index / 2]) } catch {
                    outcome.withLock { $0.failures.append("\(error)") }
                }
                return
            }
            var replies = 0
            var errors = 0
            while replies < perConnection {
                let alive = connection.readLines(timeout: 30_000) { line in
                    // Events ({"event":…, {"action":…) are not replies.
                    if line.starts(with: "{\"ev") || line.starts(with: "{\"ac") { return }
                    replies += 1
                    if line.starts(with: "{\"er") { errors += 1 }
                }
                if !alive {
                    outcome.withLock { $0.failures.append("connection \(index / 2) ended after \(replies) replies") }
                    break
                }
            }
            let now = monotonicNanoseconds()
            outcome.withLock {
                $0.errors += errors
                $0.finish = max($0.finish, now)
            }
        }
        let result = outcome.current
        if let failure = result.failures.first { throw BenchError(failure) }
        return Result(requests: connections * perConnection, seconds: Double(result.finish - start) / 1e9, errors: result.errors)
    }
}
