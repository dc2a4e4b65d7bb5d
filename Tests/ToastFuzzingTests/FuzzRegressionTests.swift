// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import ToastCore
@testable import ToastFuzzing

/// Every seed and every input the fuzzer once broke toastd with, replayed
/// through the fuzz target's own driver: none may break a promise again.
@Suite("Fuzz corpus and regressions")
struct FuzzRegressionTests {
    static let fuzzDirectory = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "fuzz")

    static func inputs(_ folder: String) -> [String] {
        let directory = fuzzDirectory.appending(path: folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
    }

    @Test(arguments: inputs("corpus") + inputs("regressions"))
    func replaysWithoutBreakingAPromise(input: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fuzzDirectory.appending(path: input)))
        #expect(FuzzInput.run(bytes) == [])
    }

    /// The driver's own line splitter (memchr) cuts an input where
    /// `split` does, empty lines and a last line without a newline included,
    /// and stops at the limit.
    @Test(arguments: ["", "\n", "a", "a\n", "\n\nb", "ab\ncd\n\nef", String(repeating: "x\n", count: 9)])
    func linesAreCutAsSplitCutsThem(text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            let expected = buffer.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
            for limit in [1, 3, 400] {
                #expect(FuzzInput.lines(of: buffer, upTo: limit).map(Array.init) == Array(expected.prefix(limit)))
            }
        }
    }

    /// fuzz/seeds-from-transcripts.py writes one seed per transcript.
    @Test func theSeedsCoverEveryTranscript() {
        let seeds = Self.inputs("corpus").filter { $0.hasSuffix(".seed") }.map { $0.dropFirst("corpus/".count).dropLast(".seed".count) }
        let examples = Self.fuzzDirectory.deletingLastPathComponent().appending(path: "protocol/examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
        let transcripts = names.filter { $0.hasSuffix(".transcript") }.sorted().map { $0.dropLast(".transcript".count) }
        #expect(transcripts.count >= 8)
        #expect(seeds == transcripts)
    }

    /// The driver itself must notice a broken promise: a session whose
    /// replies are fine but whose toasts never end is caught by `finish`.
    /// The reply check reads the line toastd would write: a real reply
    /// (a list, which repeats the state) reads back to its value; a value
    /// JSON cannot hold does not.
    @Test func theReplyCheckReadsTheWireLine() {
        var service = ToastService(configuration: FuzzInput.configuration)
        _ = service.respond(toLine: Array(#"{"op":"add","toast":{"message":"a \"quoted\"\nline é"}}"#.utf8), defaultSource: nil, now: 0)
        let list = service.respond(toLine: Array(#"{"op":"list","ref":7}"#.utf8), defaultSource: nil, now: 0)
        #expect(list.replyLine != nil)
        #expect(FuzzInput.readsBack(list) == nil)
        let reply = list.reply!
        let line = list.replyLine!
        #expect(FuzzInput.readsBack(Array(line.dropLast()), as: reply)?.contains("not one line") == true)
        #expect(FuzzInput.readsBack(line + line, as: reply)?.contains("not one line") == true)
        #expect(FuzzInput.readsBack(Array(line.dropLast(2)) + [UInt8(ascii: "\n")], as: reply)?.contains("not valid JSON") == true)
        #expect(FuzzInput.readsBack(Array(#"{"ok":true,"ref":8}"#.utf8) + [UInt8(ascii: "\n")], as: reply)?.contains("does not read back") == true)
    }

    /// The seed of stored toasts (`%` lines) holds toasts that read, so
    /// that the fuzzer starts from the reader's whole path, not its first
    /// refusal.
    @Test func theStoredToastSeedReads() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fuzzDirectory.appending(path: "corpus/stored-toasts.bin")))
        let lines = bytes.split(separator: UInt8(ascii: "\n")).filter { $0.first == UInt8(ascii: "%") }
        #expect(lines.count == 2)
        for line in lines {
            let record = Array(line.dropFirst()).withUnsafeBufferPointer { try? StoredToast.record(id: 1, from: $0) }
            #expect(record != nil)
            #expect(Array(line).withUnsafeBufferPointer { FuzzInput.storedToastProblem($0.dropFirst()) } == nil)
        }
    }

    @Test func theDriverCatchesABrokenPromise() {
        var machine = SchedulerStateMachine(configuration: FuzzInput.configuration)
        var invariants = SchedulerInvariants(configuration: FuzzInput.configuration)
        let toast = Toast(message: "m", duration: .indefinite)
        invariants.observe(machine.handle(.add(toast), now: 0).events)
        // Skip observing the second add's events: its toast "never entered".
        _ = machine.handle(.add(toast), now: 0)
        _ = machine.handle(.add(Toast(message: "n")), now: 0)
        invariants.finish(&machine, now: 1)
        #expect(!invariants.violations.isEmpty)
    }
}
