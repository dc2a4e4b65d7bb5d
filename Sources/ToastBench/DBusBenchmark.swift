// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastCore
import ToastFreedesktop
import SDBus

#if canImport(Glibc)
import Glibc
#endif

/// toastd as the desktop's notification server against dunst: one-shot
/// `notify-send` and a persistent D-Bus client's Notify rate, each on a
/// private bus of its own (scripts/bench.sh --with-dunst starts dunst).
public enum DBusBenchmark {
    /// Waits until `name` serves org.freedesktop.Notifications on the bus.
    public static func waitForServer(_ address: String, name: String) throws {
        for _ in 0..<500 {
            if let client = try? NotificationsClient(address: address), (try? client.serverInformation().name) == name { return }
            usleep(10_000)
        }
        throw BenchError("\(name) did not take org.freedesktop.Notifications")
    }

    public struct Rate {
        public var calls = 0
        public var nanoseconds: UInt64 = 0
        public var latencies = Samples()

        public var callsPerSecond: Double { Double(calls) / (Double(nanoseconds) / 1e9) }
    }

    /// What a persistent client calls, synchronously, again and again.
    public enum Call: Sendable {
        /// Notify with the same text each time.
        case notify
        /// GetServerInformation: the bus's round trip and the server's
        /// dispatch, with no toast behind it (the floor under Notify).
        case serverInformation
    }

    /// One persistent client: a bus connection and what it calls.
    public struct Caller {
        public let name: String
        let once: () throws -> Void

        public init(name: String, address: String, call: Call) throws {
            self.name = name
            let client = try NotificationsClient(address: address)
            let notification = Notification(appName: "bench", summary: "x", expireTimeout: 1_000)
            once =
                switch call {
                case .notify: { _ = try client.notify(notification) }
                case .serverInformation: { _ = try client.serverInformation() }
                }
            for _ in 0..<20 { try once() }
        }
    }

    /// Synchronous calls from each caller, taking turns: `rounds` rounds of
    /// `seconds` each, so that the machine's slow and fast moments fall on
    /// every server alike.
    public static func rates(_ callers: [Caller], rounds: Int, seconds: Double) throws -> [Rate] {
        var rates = Array(repeating: Rate(), count: callers.count)
        for _ in 0..<rounds {
            for (index, caller) in callers.enumerated() {
                let start = monotonicNanoseconds()
                let end = start + UInt64(seconds * 1e9)
                var now = start
                while now < end {
                    let before = now
                    try caller.once()
                    now = monotonicNanoseconds()
                    rates[index].latencies.append(Double(now - before) / 1e6)
                    rates[index].calls += 1
                }
                rates[index].nanoseconds += now - start
            }
        }
        return rates
    }
}
