import CSystemd
import ToastCore
#if canImport(Glibc)
import Glibc
#endif

/// The time from an add written to its `presented` event read, at each of
/// N subscribers. Adds go one at a time (each waits for its reply) with a
/// pause between them, so this measures latency, not a queue under load.
/// Each toast goes to a scene of its own, so it is presented at once.
public enum FanOutBenchmark {
    /// Who reads the subscribers' sockets.
    public enum Readers: Sendable {
        /// One thread polls every socket: what remains is the daemon's own
        /// cost (the target applies to this).
        case oneThread
        /// A thread per subscriber, each blocked in its own read, sharing the
        /// cores with toastd: what N viewers see.
        case threadPerSubscriber
    }

    public static func run(
        socket: String, subscribers: Int, samples: Int, readers: Readers = .oneThread, pauseMicroseconds: UInt32 = 2_000
    ) throws -> Samples {
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

        let readerThreads = readers == .oneThread ? 1 : subscribers
        onThreads(readerThreads + 1) { index in
            if index == readerThreads {
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
            if readers == .oneThread {
                do {
                    received.withLock { $0 = [] }
                    let times = try Self.readAll(listeners, samples: samples, needle: needle)
                    received.withLock { $0 = times }
                } catch {
                    failure.withLock { $0 = "\(error)" }
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

    /// Every subscriber's presented events, read by one thread that polls
    /// every socket; the time each sample reached each subscriber.
    static func readAll(_ listeners: [LineSocket], samples: Int, needle: [UInt8]) throws -> [[UInt64]] {
        // One epoll set, as a daemon's own loop would read them: a wake-up
        // costs the sockets that are ready, not a scan of all of them
        // (poll(2) over 128 descriptors made the reader's cost grow with
        // the count and counted it against toastd).
        let epoll = toastd_epoll_create()
        guard epoll >= 0 else { throw BenchError("epoll_create1: errno \(errno)") }
        defer { close(epoll) }
        for (index, listener) in listeners.enumerated() where toastd_epoll_set(epoll, listener.fd, 1, UInt32(EPOLLIN.rawValue), 0, UInt64(index)) != 0 {
            throw BenchError("epoll_ctl: errno \(errno)")
        }
        var times = [[UInt64]](repeating: [UInt64](repeating: 0, count: samples), count: listeners.count)
        var seen = [Int](repeating: 0, count: listeners.count)
        var ready = [UInt64](repeating: 0, count: min(listeners.count, 256))
        var complete = 0
        while complete < listeners.count {
            let count = toastd_epoll_wait_many(epoll, 20_000, &ready, Int32(ready.count))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("subscribers saw \(seen.reduce(0, +)) of \(samples * listeners.count) events") }
            for token in ready[..<Int(count)] {
                let index = Int(token)
                let before = seen[index]
                let alive = listeners[index].readLines { line in
                    guard line.starts(with: "{\"event\":\"presented\""), let number = Self.sample(after: needle, in: line),
                        number < samples
                    else { return }
                    times[index][number] = monotonicNanoseconds()
                    seen[index] += 1
                }
                guard alive else { throw BenchError("subscriber \(index) closed after \(seen[index]) of \(samples)") }
                if before < samples && seen[index] >= samples { complete += 1 }
            }
        }
        return times
    }

    static func sample(after needle: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
        line.integer(after: needle)
    }
}
