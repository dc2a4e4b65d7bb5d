// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import CEpoll
import ToastCore
#if canImport(Glibc)
import Glibc
#endif

/// The time from an add written to its `presented` event read, at each of
/// N subscribers. Adds go one at a time (each waits for its reply) with a
/// pause between them, so this measures latency, not a queue under load.
/// Each toast goes to a scene of its own, so it is presented at once.
/// Every clock read is CLOCK_MONOTONIC, which all processes share.
public enum FanOutBenchmark {
    /// Who reads the subscribers' sockets.
    public enum Readers: Sendable {
        /// One thread waits on every socket with epoll: what remains is the
        /// daemon's own cost (the target applies to this).
        case oneThread
        /// The same thread, but it polls epoll without ever sleeping, so
        /// the kernel never has to wake it: toastd's writes no longer pay
        /// for the reader's wake-ups.
        case oneSpinningThread
        /// A process per subscriber (`executable fanout-viewer`), each
        /// blocked in its own read, sharing the cores with toastd: what N
        /// viewers see.
        case processPerSubscriber(executable: String)
    }

    public static func run(
        socket: String, subscribers: Int, samples: Int, readers: Readers = .oneThread, pauseMicroseconds: UInt32 = 2_000
    ) throws -> Samples {
        let tag = "fanout-\(monotonicNanoseconds() % 1_000_000)-"
        let adder = try LineSocket(path: socket)
        let received: [[UInt64]]
        var sent: [UInt64] = []
        switch readers {
        case .oneThread, .oneSpinningThread:
            let listeners = try subscribe(subscribers, to: socket)
            let spinning = if case .oneSpinningThread = readers { true } else { false }
            let times = Locked<Result<[[UInt64]], any Error>>(.success([]))
            let sentTimes = Locked<Result<[UInt64], any Error>>(.success([]))
            onThreads(2) { index in
                if index == 0 {
                    sentTimes.withLock { $0 = Result { try addAll(adder, tag: tag, samples: samples, pause: pauseMicroseconds) } }
                } else {
                    let needle = Self.needle(for: tag)
                    times.withLock { $0 = Result { try readAll(listeners, samples: samples, needle: needle, spinning: spinning) } }
                }
            }
            sent = try sentTimes.current.get()
            received = try times.current.get()
        case .processPerSubscriber(let executable):
            let viewers = try Viewers(executable: executable, socket: socket, count: subscribers, samples: samples, tag: tag)
            sent = try addAll(adder, tag: tag, samples: samples, pause: pauseMicroseconds)
            received = try viewers.results()
        }
        _ = try? adder.write(RequestLine.clearAll)
        _ = try? adder.readLine()
        var latencies = Samples()
        for times in received {
            for (sample, time) in times.enumerated() { latencies.append(Double(time &- sent[sample]) / 1000) }
        }
        return latencies
    }

    /// `count` live subscriptions (no snapshot), each answered.
    static func subscribe(_ count: Int, to socket: String, timeout: Int32 = 10_000) throws -> [LineSocket] {
        let listeners = try (0..<count).map { _ in try LineSocket(path: socket) }
        for listener in listeners {
            try listener.write(RequestLine.subscribeLive)
            _ = try listener.readLine(timeout: timeout)
        }
        return listeners
    }

    /// Sample `sample`'s add: shown at once (a scene of its own) and until cleared.
    static func addLine(tag: String, sample: Int) -> [UInt8] {
        RequestLine.add(Toast(message: "\(tag)\(sample)", duration: .indefinite, scene: "fanout-\(sample)"))
    }

    /// Adds the samples one at a time, each after the last one's reply and
    /// a pause; when each was written.
    static func addAll(_ adder: LineSocket, tag: String, samples: Int, pause: UInt32) throws -> [UInt64] {
        var sent = [UInt64](repeating: 0, count: samples)
        for sample in 0..<samples {
            let line = addLine(tag: tag, sample: sample)
            sent[sample] = monotonicNanoseconds()
            try adder.write(line)
            _ = try adder.readLine()
            usleep(pause)
        }
        return sent
    }

    /// Every subscriber's presented events, read by one thread that waits
    /// on (or, `spinning`, polls) one epoll set; the time each sample
    /// reached each subscriber.
    static func readAll(_ listeners: [LineSocket], samples: Int, needle: [UInt8], spinning: Bool) throws -> [[UInt64]] {
        // One epoll set, as a daemon's own loop would read them: a wake-up
        // costs the sockets that are ready, not a scan of all of them.
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
        let deadline = monotonicNanoseconds() + 20_000_000_000
        while complete < listeners.count {
            let count = toastd_epoll_wait_many(epoll, spinning ? 0 : 20_000, &ready, Int32(ready.count))
            if count < 0 && errno == EINTR { continue }
            if count == 0 && spinning && monotonicNanoseconds() < deadline { continue }
            guard count > 0 else { throw BenchError("subscribers saw \(seen.reduce(0, +)) of \(samples * listeners.count) events") }
            for token in ready[..<Int(count)] {
                let index = Int(token)
                let before = seen[index]
                let alive = listeners[index].readLines { line in
                    guard let number = sample(in: line, needle: needle, samples: samples) else { return }
                    times[index][number] = monotonicNanoseconds()
                    seen[index] += 1
                }
                guard alive else { throw BenchError("subscriber \(index) closed after \(seen[index]) of \(samples)") }
                if before < samples && seen[index] >= samples { complete += 1 }
            }
        }
        return times
    }

    /// Adds one at a time, each read by every subscriber before the next is
    /// written, with no clock: for counting a build's instructions per
    /// subscriber and add under callgrind (`toast-bench fanout-steps`). Paced
    /// adds would not do: a daemon slowed fifty times takes the adds that
    /// piled up together, so how much work an add costs would depend on how
    /// slow the run was. Returns how many presented events the subscribers
    /// read (`subscribers × samples`). The toasts are left shown.
    public static func lockstep(socket: String, subscribers: Int, samples: Int, timeout: Int32 = 60_000) throws -> Int {
        let tag = "lockstep-\(monotonicNanoseconds() % 1_000_000)-"
        let needle = Self.needle(for: tag)
        let listeners = try subscribe(subscribers, to: socket, timeout: timeout)
        let adder = try LineSocket(path: socket)
        var read = 0
        for sample in 0..<samples {
            try adder.write(addLine(tag: tag, sample: sample))
            _ = try adder.readLine(timeout: timeout)
            for (index, listener) in listeners.enumerated() {
                var seen = false
                while !seen {
                    let alive = listener.readLines(timeout: timeout) { line in
                        if Self.sample(in: line, needle: needle, samples: samples) == sample { seen = true }
                    }
                    guard alive else { throw BenchError("subscriber \(index) did not read add \(sample)") }
                }
                read += 1
            }
        }
        // No closing `clear`: how many subscribers it would reach depends
        // on whether toastd has yet seen them close, so its share of the
        // count would depend on timing. The toasts stay shown.
        return read
    }

    /// What precedes the sample number in this run's presented events.
    static func needle(for tag: String) -> [UInt8] {
        Array("\"message\":\"\(tag)".utf8)
    }

    /// The sample number of a presented event of this run, if `line` is one.
    static func sample(in line: ArraySlice<UInt8>, needle: [UInt8], samples: Int) -> Int? {
        guard line.starts(with: "{\"event\":\"presented\"".utf8), let number = line.integer(after: needle), number < samples
        else { return nil }
        return number
    }

    // MARK: - A process per subscriber

    /// One viewer process (`toast-bench fanout-viewer`): subscribes, says
    /// `ready` through `emit` (the executable's stdout writer), reads until
    /// it has seen every sample of `tag`, then says when each arrived
    /// (monotonic nanoseconds) on one line.
    public static func view(socket: String, samples: Int, tag: String, emit: (String) -> Void) throws {
        let listener = try subscribe(1, to: socket)[0]
        emit("ready")
        let needle = Self.needle(for: tag)
        var times = [UInt64](repeating: 0, count: samples)
        var seen = 0
        while seen < samples {
            let alive = listener.readLines(timeout: 20_000) { line in
                guard let number = sample(in: line, needle: needle, samples: samples) else { return }
                times[number] = monotonicNanoseconds()
                seen += 1
            }
            guard alive else { throw BenchError("a viewer saw \(seen) of \(samples) events") }
        }
        emit("times " + times.map(String.init).joined(separator: " "))
    }

    /// The viewer processes of one run, each writing to a file of its own.
    final class Viewers {
        let directory: String
        let processes: [ChildProcess]

        /// Starts `count` viewers, their files in a new directory under `parent`.
        init(executable: String, socket: String, count: Int, samples: Int, tag: String, parent: String = "/tmp") throws {
            directory = try TemporaryDirectory(prefix: "toast-bench-viewers", in: parent).path
            var started: [ChildProcess] = []
            do {
                for index in 0..<count {
                    started.append(
                        try ChildProcess(
                            executable, ["fanout-viewer", "--socket", socket, "--samples", "\(samples)", "--tag", tag],
                            output: "\(directory)/\(index)"
                        )
                    )
                }
            } catch {
                // Not yet initialized, so no deinit: stop the viewers already
                // started here (the one that failed may have made its file).
                Self.stop(started, directory: directory)
                throw error
            }
            processes = started
            // Every viewer subscribed before the first add.
            let deadline = monotonicNanoseconds() + 30_000_000_000
            for index in 0..<count {
                while !readFile("\(directory)/\(index)").hasPrefix("ready\n") {
                    guard monotonicNanoseconds() < deadline else { throw BenchError("viewer \(index) did not subscribe") }
                    usleep(1_000)
                }
            }
        }

        deinit {
            Self.stop(processes, directory: directory)
        }

        /// Ends the viewers and removes their directory, files and all.
        static func stop(_ processes: [ChildProcess], directory: String) {
            for process in processes { process.terminate() }
            TemporaryDirectory.removeTree(directory)
        }

        /// Each viewer's arrival times, once all have exited.
        func results() throws -> [[UInt64]] {
            try processes.indices.map { index in
                let status = processes[index].wait()
                let output = readFile("\(directory)/\(index)")
                guard status == 0, let line = output.split(separator: "\n").first(where: { $0.hasPrefix("times ") }) else {
                    throw BenchError("viewer \(index) exited with \(status): \(output.suffix(300))")
                }
                return line.dropFirst("times ".count).split(separator: " ").map { UInt64($0) ?? 0 }
            }
        }
    }
}
