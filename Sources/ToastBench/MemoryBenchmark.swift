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
        /// When idle was read: KiB of file pages mapped huge (toastd's hot
        /// code, `HugeCodePages`), and the threads it had, so that an idle
        /// row read before toastd let go of its start-up code says so.
        public var idleHugeKiB: Int
        public var idleThreads: Int
        /// Its mappings with the most PSS, when idle was read.
        public var idleMappings: [ChildProcess.MappingMemory]
        /// The same with each count of toasts queued, in order.
        public var queued: [(count: Int, memory: (pss: Int, anonymous: Int, rss: Int))]
    }

    /// Adds indefinite toasts to one stack (three shown, the rest queued)
    /// until each of `counts` is held, and reads PSS, anonymous memory and
    /// RSS at each, once toastd has settled.
    public static func run(server: ServerUnderTest, counts: [Int]) throws -> Result {
        let idle = ChildProcess.settledSmaps(of: server.process.pid)
        let idleThreads = BenchmarkSuite.threads(of: server.process.pid).count
        let mappings = ChildProcess.mappings(smaps: readFile("/proc/\(server.process.pid)/smaps"))
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
            queued.append((count, ChildProcess.settledSmaps(of: server.process.pid)))
        }
        return Result(
            idle: idle, idleHugeKiB: mappings.reduce(0) { $0 + $1.hugeFile }, idleThreads: idleThreads,
            idleMappings: ChildProcess.largest(mappings, count: 6), queued: queued
        )
    }

    /// A peer's row from bench/peers-memory.sh: dunst or mako, idle or
    /// holding a count of notifications.
    public struct PeerRow: Equatable, Sendable {
        public var label: String
        /// KiB, or nil where the peer could not be measured (the note says why).
        public var memory: (pss: Int, anonymous: Int, rss: Int)?
        public var note: String

        public static func == (a: PeerRow, b: PeerRow) -> Bool {
            a.label == b.label && a.note == b.note && a.memory?.pss == b.memory?.pss
                && a.memory?.anonymous == b.memory?.anonymous && a.memory?.rss == b.memory?.rss
        }
    }

    /// Reads bench/peers-memory.sh's lines: `LABEL \t PSS \t anonymous \t RSS \t NOTE`,
    /// sizes in KiB, empty where not measured. Lines of any other shape are
    /// skipped: the file is the output of another program.
    public static func peerRows(_ text: String) -> [PeerRow] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, !fields[0].isEmpty else { return nil }
            let sizes = fields[1...3].map { Int($0) }
            if sizes.allSatisfy({ $0 != nil }) {
                return PeerRow(label: fields[0], memory: (sizes[0]!, sizes[1]!, sizes[2]!), note: fields[4])
            }
            guard fields[1...3].allSatisfy(\.isEmpty) else { return nil }
            return PeerRow(label: fields[0], memory: nil, note: fields[4])
        }
    }
}
