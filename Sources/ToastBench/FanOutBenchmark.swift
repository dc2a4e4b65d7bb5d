import ToastCore
#if canImport(Glibc)
import Glibc
#endif

/// The time from an add written to its `presented` event read, at each of
/// N subscribers. Adds go one at a time (each waits for its reply) with a
/// pause between them, so this measures latency, not a queue under load.
/// Each toast goes to a scene of its own, so it is presented at once.
public enum FanOutBenchmark {
    public static func run(socket: String, subscribers: Int, samples: Int, pauseMicroseconds: UInt32 = 2_000) throws -> Samples {
        let tag = "fanout-\(monotonicNanoseconds() % 1_000_000)-"
        let needle = Array("\"message\":\"\(tag)".utf8)
        let listeners = try (0..<subscribers).map { _ in try LineSocket(path: socket) }
        for listener in listeners {
            try listener.write(RequestLine.subscribeLive)
            _ = try listener.readLine()
        }
        let sent = Locked([UInt64](repeating: 0, count: samples))
        let received = Locked([[UInt64]](repeating: [], count: subscribers))
        let failure = Locked<String?>(nil)
        let adder = try LineSocket(path: socket)

        onThreads(subscribers + 1) { index in
            if index == subscribers {
                do {
                    for sample in 0..<samples {
                        let line = RequestLine.add(Toast(message: "\(tag)\(sample)", duration: .indefinite, scene: "fanout-\(sample)"))
                        let start = monotonicNanoseconds()
                        sent.withLock { $0[sample] = start }
                        try adder.write(line)
                        _ = try adder.readLine()
                        usleep(pauseMicroseconds)
                    }
                } catch {
                    failure.withLock { $0 = "adder: \(error)" }
                }
                return
            }
            var times = [UInt64](repeating: 0, count: samples)
            var seen = 0
            while seen < samples {
                let alive = listeners[index].readLines(timeout: 20_000) { line in
                    guard line.starts(with: "{\"event\":\"presented\""), let number = Self.sample(after: needle, in: line),
                        number < samples
                    else { return }
                    times[number] = monotonicNanoseconds()
                    seen += 1
                }
                if !alive {
                    failure.withLock { $0 = "subscriber \(index) saw \(seen) of \(samples)" }
                    break
                }
            }
            received.withLock { $0[index] = times }
        }
        if let failure = failure.current { throw BenchError(failure) }
        _ = try? adder.write(RequestLine.clearAll)
        _ = try? adder.readLine()
        let start = sent.current
        var latencies = Samples()
        for times in received.current {
            for (sample, time) in times.enumerated() { latencies.append(Double(time &- start[sample]) / 1000) }
        }
        return latencies
    }

    /// The sample number in a presented event's message.
    static func sample(after needle: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
        line.integer(after: needle)
    }
}
