import Foundation
import Testing
import ToastCore
import ToastFuzzing

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
