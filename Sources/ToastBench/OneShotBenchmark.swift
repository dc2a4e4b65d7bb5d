// SPDX-License-Identifier: Apache-2.0
/// The wall time of one whole client process: spawn, connect, one add,
/// its reply, exit. Each client runs `runs` times per round, and the
/// rounds interleave the clients, so a noisy moment of this shared
/// machine falls on all of them alike.
public enum OneShotBenchmark {
    public struct Client: Sendable {
        public var name: String
        public var executable: String
        public var arguments: [String]
        public var stdin: String = "/dev/null"
        public var environment: [String: String] = [:]

        public init(name: String, executable: String, arguments: [String], stdin: String = "/dev/null", environment: [String: String] = [:]) {
            self.name = name
            self.executable = executable
            self.arguments = arguments
            self.stdin = stdin
            self.environment = environment
        }
    }

    /// Milliseconds per run, by client name.
    public static func run(_ clients: [Client], rounds: Int, runs: Int, warmup: Int = 5) throws -> [String: Samples] {
        for client in clients {
            for _ in 0..<warmup {
                _ = try ChildProcess.time(client.executable, client.arguments, stdin: client.stdin, environment: client.environment)
            }
        }
        var results: [String: Samples] = [:]
        for _ in 0..<rounds {
            for client in clients {
                for _ in 0..<runs {
                    let nanoseconds = try ChildProcess.time(
                        client.executable, client.arguments, stdin: client.stdin, environment: client.environment
                    )
                    results[client.name, default: Samples()].append(Double(nanoseconds) / 1e6)
                }
            }
        }
        return results
    }
}
