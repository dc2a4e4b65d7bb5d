// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastProtocol
import Foundation
import ToastFuzzing

/// The fuzz target's own work, without libFuzzer: every input of a corpus
/// through `FuzzInput.run` (decode, answer, check), in an ordinary release
/// build. Its executions a second are the ceiling of a fuzzing run over the
/// same inputs, which adds coverage callbacks and libFuzzer's bookkeeping
/// to each (docs/BENCHMARKS.md, "Fuzzing").
public enum FuzzReplay {
    public struct Input: Sendable {
        public let name: String
        public let bytes: [UInt8]
    }

    public struct Outcome: Sendable {
        public let inputs: Int
        public let meanBytes: Double
        public let executions: Int
        public let seconds: Double
        /// Each input that broke a promise, with what it broke.
        public let violations: [(name: String, problems: [String])]

        public var perSecond: Double { Double(executions) / seconds }
    }

    /// The files named, and the files directly inside the directories named
    /// (as libFuzzer reads a corpus), in name order.
    public static func inputs(at paths: [String]) throws -> [Input] {
        var inputs: [Input] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw BenchError("no such file or directory: \(path)")
            }
            let files = isDirectory.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                inputs.append(Input(name: file, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))))
            }
        }
        return inputs
    }

    /// Runs every input `rounds` times; an input's violations are kept from
    /// its first round (the run is deterministic).
    public static func run(_ inputs: [Input], rounds: Int) -> Outcome {
        var violations: [(name: String, problems: [String])] = []
        let start = monotonicNanoseconds()
        for round in 0..<rounds {
            for input in inputs {
                let problems = FuzzInput.run(input.bytes)
                if round == 0, !problems.isEmpty { violations.append((input.name, problems)) }
            }
        }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let bytes = inputs.reduce(0) { $0 + $1.bytes.count }
        return Outcome(
            inputs: inputs.count, meanBytes: inputs.isEmpty ? 0 : Double(bytes) / Double(inputs.count),
            executions: inputs.count * rounds, seconds: seconds, violations: violations
        )
    }
}
