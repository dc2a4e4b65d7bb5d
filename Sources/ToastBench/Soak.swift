// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastCore
#if canImport(Glibc)
import Glibc
#endif

/// Everything at once against one real toastd, then the checks that it
/// came through whole. See docs/BENCHMARKS.md ("Soak") for the bounds.
///
/// During the run: `clients` connections add toasts (some with a reuse
/// identifier, so they update in place) and update their own toasts;
/// `subscribers` subscribers read every event, `stalled` of them never
/// read after subscribing; `hostile` clients send garbage, oversized lines,
/// invalid UTF-8 and half lines, then vanish; `churners` connect and
/// disconnect in a tight loop; one client pipelines `listRequests` lists
/// and never reads a reply (the review's memory attack, issue #38).
///
/// Afterwards: toastd still answers `status` and shows a new toast at
/// once; its peak RSS stayed under `rssLimitKiB`; its open descriptors
/// are back to where they were before the run; and every add it
/// acknowledged entered each healthy subscriber's stream exactly once and
/// ended there exactly once.
public struct Soak: Sendable {
    public var seconds: Double
    public var clients = 200
    public var subscribers = 20
    public var stalled = 5
    public var hostile = 8
    public var churners = 4
    /// Lists pipelined by the client that never reads (28 KB of requests:
    /// they fit the socket buffer, so writing them never blocks).
    public var listRequests = 2_000
    public var rssLimitKiB = 256 * 1024

    public init(seconds: Double) { self.seconds = seconds }

    public struct Report: Sendable {
        public var acknowledged = 0
        public var deduped = 0
        public var updates = 0
        public var refusals = 0
        /// Error replies by code (not_found: an update of a toast that had ended).
        public var errorCodes: [String: Int] = [:]
        public var hostileConnections = 0
        public var churnConnections = 0
        public var eventsPerHealthySubscriber = 0
        public var peakRSSKiB = 0
        public var descriptorsBefore = 0
        public var descriptorsAfter = 0
        public var statusMilliseconds = 0.0
        public var failures: [String] = []
    }

    /// What one healthy subscriber saw of each toast.
    struct Seen {
        var entered: [Int: Int] = [:]
        var ended: [Int: Int] = [:]
        var events = 0
        var lagged = false
    }

    public func run(server: ServerUnderTest) throws -> Report {
        var report = Report()
        let process = server.process
        report.descriptorsBefore = process.openFileDescriptors
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        let healthyCount = subscribers - stalled

        // Subscribers first, so that they see every toast from its start.
        let listeners = try (0..<subscribers).map { _ in try LineSocket(path: server.socket) }
        for listener in listeners {
            try listener.write(RequestLine.subscribeLive)
            _ = try listener.readLine()
        }
        // Replies toastd must not pile up: answered only as they are read.
        let hoarder = try LineSocket(path: server.socket)
        try hoarder.write(Array(repeating: RequestLine.list, count: listRequests).flatMap { $0 })
        let stalledListeners = Array(listeners[healthyCount...])
        let healthy = Array(listeners[..<healthyCount])

        let acked = Locked(Set<Int>())
        let counters = Locked(Report())
        let loadDone = Locked(false)
        let finished = Locked(0)
        let seen = Locked([Seen](repeating: Seen(), count: healthyCount))
        let peak = Locked(0)

        let workers = clients + hostile + churners
        onThreads(healthyCount + workers + 1, stackSize: 256 << 10) { index in
            if index < healthyCount {
                let watched = Self.watch(healthy[index], until: { loadDone.current })
                seen.withLock { $0[index] = watched }
                finished.withLock { $0 += 1 }
            } else if index < healthyCount + clients {
                Self.client(index - healthyCount, socket: server.socket, deadline: deadline, acked: acked, counters: counters)
            } else if index < healthyCount + clients + hostile {
                Self.hostileClient(index, socket: server.socket, deadline: deadline, counters: counters)
            } else if index < healthyCount + workers {
                Self.churner(socket: server.socket, deadline: deadline, counters: counters)
            } else {
                // The monitor: RSS while the load runs, then end every toast.
                while monotonicNanoseconds() < deadline {
                    let rss = process.memory.rss
                    peak.withLock { $0 = max($0, rss) }
                    usleep(100_000)
                }
                // Let the toasts end by themselves (the longest lives a
                // second after its last update; queues drain in a few), then
                // end what is left: ending thousands at once would be a burst
                // beyond any subscriber's buffer. Then add a marker: a
                // subscriber that has read the marker has read every event
                // before it.
                usleep(4_000_000)
                if let control = try? LineSocket(path: server.socket) {
                    try? control.write(RequestLine.clearAll)
                    _ = try? control.readLine()
                    try? control.write(RequestLine.add(Toast(message: "soak over", duration: .short, scene: "soak-over")))
                    _ = try? control.readLine()
                }
                // A subscriber that never sees the marker gives up after 30 s.
                for _ in 0..<300 where finished.current < healthyCount { usleep(100_000) }
                loadDone.withLock { $0 = true }
            }
        }
        for listener in stalledListeners { listener.close() }
        hoarder.close()

        let totals = counters.current
        report.acknowledged = acked.current.count
        report.deduped = totals.deduped
        report.updates = totals.updates
        report.refusals = totals.refusals
        report.errorCodes = totals.errorCodes
        report.hostileConnections = totals.hostileConnections
        report.churnConnections = totals.churnConnections
        report.peakRSSKiB = max(peak.current, process.memory.peak > 0 ? 0 : 0)
        report.failures = totals.failures

        // Every acknowledged add: entered once and ended once, at every healthy subscriber.
        let ids = acked.current
        for (index, subscriber) in seen.current.enumerated() {
            report.eventsPerHealthySubscriber = max(report.eventsPerHealthySubscriber, subscriber.events)
            if subscriber.lagged { report.failures.append("healthy subscriber \(index) was lagged") }
            let missing = ids.filter { subscriber.entered[$0] != 1 || subscriber.ended[$0] != 1 }
            if let id = missing.first {
                report.failures.append(
                    "subscriber \(index): \(missing.count) acknowledged toasts not seen exactly once with an end, e.g. \(id) "
                        + "(entered \(subscriber.entered[id] ?? 0), ended \(subscriber.ended[id] ?? 0))"
                )
            }
        }
        for listener in healthy { listener.close() }

        // Still responsive: status at once, and a new toast reaches a new subscriber.
        do {
            let start = monotonicNanoseconds()
            let probe = try LineSocket(path: server.socket)
            try probe.write(RequestLine.status)
            let reply = try probe.readLine(timeout: 2_000)
            report.statusMilliseconds = Double(monotonicNanoseconds() - start) / 1e6
            if !reply[...].starts(with: "{\"ok\":true") { report.failures.append("status after the soak: \(String(decoding: reply, as: UTF8.self))") }
            let watcher = try LineSocket(path: server.socket)
            try watcher.write(RequestLine.subscribeLive)
            _ = try watcher.readLine(timeout: 2_000)
            try probe.write(RequestLine.add(Toast(message: "still here", duration: .short)))
            _ = try probe.readLine(timeout: 2_000)
            let event = try watcher.readLine(timeout: 2_000)
            if !event[...].starts(with: "{\"event\":\"presented\"") {
                report.failures.append("after the soak a new toast gave \(String(decoding: event.prefix(80), as: UTF8.self))")
            }
        } catch {
            report.failures.append("toastd is not responsive after the soak: \(error)")
        }

        // Descriptors back to the baseline once every connection is gone.
        for _ in 0..<50 {
            report.descriptorsAfter = process.openFileDescriptors
            if report.descriptorsAfter <= report.descriptorsBefore { break }
            usleep(100_000)
        }
        if report.descriptorsAfter > report.descriptorsBefore {
            report.failures.append("toastd holds \(report.descriptorsAfter) descriptors, \(report.descriptorsBefore) before")
        }
        report.peakRSSKiB = peak.current
        if report.peakRSSKiB > rssLimitKiB {
            report.failures.append("peak RSS \(report.peakRSSKiB) KiB, over the bound of \(rssLimitKiB) KiB")
        }
        if report.acknowledged == 0 { report.failures.append("no add was acknowledged") }
        return report
    }

    // MARK: - The parts

    /// Reads events until told to stop, noting each toast's entry and end.
    static func watch(_ listener: LineSocket, until done: () -> Bool) -> Seen {
        var seen = Seen()
        var over = false
        let marker = Array(#""scene":"soak-over""#.utf8)
        let lagged = Array(#""event":"lagged""#.utf8)
        while !over && !done() {
            _ = listener.readLines(timeout: 100) { line in
                seen.events += 1
                if line.contains(marker) {
                    over = true
                    return
                }
                if line.contains(lagged) { seen.lagged = true }
                guard let id = toastID(in: line) else { return }
                if line.starts(with: "{\"event\":\"queued\"") {
                    seen.entered[id, default: 0] += 1
                } else if line.starts(with: "{\"event\":\"presented\"") {
                    // Presented without a queued before it: entered at once.
                    if seen.entered[id] == nil { seen.entered[id] = 1 }
                } else if line.starts(with: "{\"event\":\"dismissed\"") || line.starts(with: "{\"event\":\"cancelled\"") {
                    seen.ended[id, default: 0] += 1
                }
            }
        }
        return seen
    }

    /// The toast's id in an event line: the first `"id":` followed by a
    /// digit (action ids are strings; keys are sorted, so nothing else
    /// numeric is called "id").
    static func toastID(in line: ArraySlice<UInt8>) -> Int? {
        line.integer(after: idKey)
    }

    static let idKey = Array(#""id":"#.utf8)

    /// Adds (a third with a reuse identifier) and updates its last toast,
    /// at a human-ish pace, until the deadline.
    static func client(_ number: Int, socket: String, deadline: UInt64, acked: Locked<Set<Int>>, counters: Locked<Report>) {
        guard let connection = try? LineSocket(path: socket) else {
            counters.withLock { $0.failures.append("client \(number) could not connect") }
            return
        }
        var sequence = 0
        var lastID: Int?
        var ids: [Int] = []
        var deduped = 0
        var updates = 0
        var refusals = 0
        var codes: [String: Int] = [:]
        while monotonicNanoseconds() < deadline {
            sequence += 1
            let line: [UInt8]
            let isAdd: Bool
            if let id = lastID, sequence % 4 == 0 {
                let patch = ToastPatch(progress: .fraction(Double(sequence % 10) / 10))
                line = RequestLine.bytes(.command(.update(.id(ToastID(id)), patch)))
                isAdd = false
                updates += 1
            } else {
                // Every third add reuses one of two identifiers and lives a
                // second, so the next one with that identifier often updates it.
                let reused = sequence % 3 == 0
                line = RequestLine.add(Toast(
                    message: "client \(number) #\(sequence)", duration: .seconds(reused ? 1 : [0.1, 0.2, 0.3][sequence % 3]),
                    scene: "c\(number)", reuseID: reused ? "r\(sequence % 2)" : nil, source: "client-\(number)"
                ))
                isAdd = true
            }
            do {
                try connection.write(line)
                var reply: ArraySlice<UInt8>?
                while reply == nil {
                    guard connection.readLines(timeout: 10_000, { received in
                        // The adding connection also gets its toasts' end events.
                        if reply == nil && !received.starts(with: "{\"ev") && !received.starts(with: "{\"ac") { reply = received }
                    }) else { throw BenchError("no reply within 10 s") }
                }
                guard let reply else { continue }
                if reply.starts(with: "{\"ok\":true"), isAdd, let id = toastID(in: reply) {
                    ids.append(id)
                    lastID = id
                    if reply.contains(Array(#""deduped":true"#.utf8)) { deduped += 1 }
                } else if !reply.starts(with: "{\"ok\":true") {
                    refusals += 1
                    codes[errorCode(in: reply), default: 0] += 1
                }
            } catch {
                counters.withLock { $0.failures.append("client \(number): \(error)") }
                return
            }
            usleep(UInt32(40_000 + (number * 7_919 + sequence * 104_729) % 40_000))
        }
        let final = ids
        acked.withLock { $0.formUnion(final) }
        counters.withLock {
            $0.deduped += deduped
            $0.updates += updates
            $0.refusals += refusals
            $0.errorCodes.merge(codes, uniquingKeysWith: +)
        }
    }

    /// The `code` of an error reply.
    static func errorCode(in reply: ArraySlice<UInt8>) -> String {
        reply.text(after: Array(#""code":""#.utf8)) ?? "unknown"
    }

    /// Sends something hostile on a fresh connection, then vanishes.
    static func hostileClient(_ number: Int, socket: String, deadline: UInt64, counters: Locked<Report>) {
        var random = UInt64(number + 1) &* 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Int(random >> 1)
        }
        var connections = 0
        while monotonicNanoseconds() < deadline {
            guard let connection = try? LineSocket(path: socket) else {
                usleep(10_000)
                continue
            }
            connections += 1
            var payload: [UInt8]
            switch next() % 6 {
            case 0: payload = (0..<(next() % 2048)).map { _ in UInt8(truncatingIfNeeded: next()) } + [10]
            case 1: payload = [UInt8](repeating: UInt8(ascii: "{"), count: 70_000 + next() % 100_000)
            case 2: payload = RequestLine.corrupting(RequestLine.add(Toast(message: "BAD")), "BAD", with: [0xFF, 0xFE, 0xC0, 0x80])
            case 3: payload = Array(RequestLine.add(Toast(message: "half a line")).dropLast(8))
            case 4: payload = Array(String(repeating: "[", count: 5_000).utf8) + [10]
            default:
                let badRole = RequestLine.corrupting(RequestLine.add(Toast(message: "fine", role: .info)), "\"info\"", with: Array("\"nope\"".utf8))
                payload = badRole + Array("\u{0}\u{1B}[2J".utf8)
            }
            try? connection.write(payload)
            if next() % 2 == 0 { _ = connection.readLines(timeout: 50) { _ in } }
            connection.close()
            usleep(UInt32(next() % 20_000))
        }
        counters.withLock { $0.hostileConnections += connections }
    }

    /// Connects and disconnects as fast as it can.
    static func churner(socket: String, deadline: UInt64, counters: Locked<Report>) {
        var connections = 0
        while monotonicNanoseconds() < deadline {
            if let connection = try? LineSocket(path: socket) {
                connections += 1
                connection.close()
            }
        }
        counters.withLock { $0.churnConnections += connections }
    }
}

extension Soak.Report {
    public func summary(soak: Soak) -> String {
        let codes = errorCodes.sorted { $0.value > $1.value }.map { "\($0.key) \(Figure.count(Double($0.value)))" }
        let codeSummary: String = codes.isEmpty ? "" : " (" + codes.joined(separator: ", ") + ")"
        let lines: [String] = [
            "soak: \(Figure.fixed(soak.seconds, 0)) s, \(soak.clients) clients, \(soak.subscribers) subscribers (\(soak.stalled) stalled), "
                + "\(soak.hostile) hostile clients, \(soak.churners) connect loops",
            "  toasts acknowledged: \(Figure.count(Double(acknowledged))), plus \(Figure.count(Double(deduped))) adds deduped into them; "
                + "updates: \(Figure.count(Double(updates)))",
            "  error replies: \(Figure.count(Double(refusals)))\(codeSummary)",
            "  hostile connections: \(Figure.count(Double(hostileConnections))), connect-loop connections: \(Figure.count(Double(churnConnections)))",
            "  events per healthy subscriber: \(Figure.count(Double(eventsPerHealthySubscriber)))",
            "  peak RSS: \(Figure.fixed(Double(peakRSSKiB) / 1024, 1)) MiB (bound \(soak.rssLimitKiB / 1024) MiB)",
            "  descriptors: \(descriptorsBefore) before, \(descriptorsAfter) after",
            "  status after the soak: \(Figure.fixed(statusMilliseconds)) ms",
            failures.isEmpty ? "  PASS" : "  FAIL (\(failures.count))",
        ]
        return lines.joined(separator: "\n")
    }
}
