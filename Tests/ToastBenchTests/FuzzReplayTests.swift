// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import ToastBench

/// `toast-bench fuzz-replay` reads a corpus as libFuzzer does and runs
/// every input through the fuzz target's own checks.
@Suite("Fuzz replay")
struct FuzzReplayTests {
    @Test func aCorpusIsTheFilesDirectlyInsideItsDirectoryInNameOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "fuzz-replay-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appending(path: "nested"), withIntermediateDirectories: true)
        try Data(#"{"op":"add","message":"b"}"#.utf8).write(to: directory.appending(path: "b"))
        try Data("@100\n{\"op\":\"list\"}".utf8).write(to: directory.appending(path: "a"))
        try Data("ignored".utf8).write(to: directory.appending(path: "nested/c"))
        let single = directory.appending(path: "b").path

        let inputs = try FuzzReplay.inputs(at: [directory.path, single])
        #expect(inputs.map { URL(fileURLWithPath: $0.name).lastPathComponent } == ["a", "b", "b"])
        #expect(inputs[0].bytes == Array("@100\n{\"op\":\"list\"}".utf8))

        let outcome = FuzzReplay.run(inputs, rounds: 3)
        #expect(outcome.inputs == 3)
        #expect(outcome.executions == 9)
        #expect(outcome.meanBytes == Double(inputs.reduce(0) { $0 + $1.bytes.count }) / 3)
        #expect(outcome.violations.isEmpty)
        #expect(outcome.perSecond > 0)

        let missing = directory.appending(path: "missing").path
        let error = #expect(throws: BenchError.self) { try FuzzReplay.inputs(at: [missing]) }
        #expect(error?.description == "no such file or directory: \(missing)")
    }
}
