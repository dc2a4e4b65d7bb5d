#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import ToastCore

/// Replays every transcript in protocol/examples through the decoder, the
/// service and the encoder, and compares the output with the transcript
/// byte for byte (after putting the expected lines in canonical form).
///
/// To write the expected lines of a new transcript, run the tests with
/// TOASTD_BLESS_TRANSCRIPTS=1 and then *read* the result before committing.
@Suite("Protocol transcripts")
struct TranscriptTests {
    static let examples = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "protocol/examples")

    static var transcriptNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
        return names.filter { $0.hasSuffix(".transcript") }.sorted()
    }

    @Test func thereAreTranscripts() {
        #expect(Self.transcriptNames.count >= 8)
    }

    @Test(arguments: transcriptNames)
    func replay(name: String) throws {
        let url = Self.examples.appending(path: name)
        let text = try String(contentsOf: url, encoding: .utf8)
        let replayed = try Transcript.replay(text)
        if ProcessInfo.processInfo.environment["TOASTD_BLESS_TRANSCRIPTS"] == "1" {
            try replayed.blessed.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(replayed.mismatches.isEmpty, "\(name):\n\(replayed.mismatches.joined(separator: "\n"))")
        #expect(replayed.requests > 0)
    }
}

enum Transcript {
    struct Replayed {
        var mismatches: [String] = []
        var blessed = ""
        var requests = 0
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func replay(_ text: String) throws -> Replayed {
        var service = ToastService()
        var now: ToastInstant = 0
        var result = Replayed()
        var produced: [String] = []
        var expected: [String] = []

        func settle() {
            if produced.count != expected.count || zip(produced, expected).contains(where: { $0 != $1 }) {
                result.mismatches.append("expected:\n  " + expected.joined(separator: "\n  "))
                result.mismatches.append("produced:\n  " + produced.joined(separator: "\n  "))
            }
            result.blessed += produced.joined()
            produced = []
            expected = []
        }

        func output(_ effects: [SchedulerEffect]) {
            for case .publish(let event) in effects {
                produced.append("* " + String(decoding: WireEncoder.eventLine(event), as: UTF8.self))
            }
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("< ") || line.hasPrefix("* ") {
                let json = try JSONValue.parse(String(line.dropFirst(2)))
                expected.append(String(line.prefix(2)) + json.serialized + "\n")
                continue
            }
            settle()
            if line.hasPrefix("> ") {
                result.blessed += line + "\n"
                result.requests += 1
                let response = service.respond(toLine: Array(line.dropFirst(2).utf8), defaultSource: nil, now: now)
                // The line toastd sends, written directly where it can be.
                guard let reply = response.replyLine else {
                    throw Malformed(description: "transcripts cannot hold connection-level requests: \(line)")
                }
                produced.append("< " + String(decoding: reply, as: UTF8.self))
                output(response.effects)
            } else if line.hasPrefix("@") {
                guard let time = ToastInstant(line.dropFirst()), time >= now else {
                    throw Malformed(description: "bad clock line: \(line)")
                }
                result.blessed += line + "\n"
                output(service.advance(to: time))
                now = time
            } else if line.hasPrefix("#") || line.isEmpty {
                result.blessed += line + "\n"
            } else {
                throw Malformed(description: "unknown transcript line: \(line)")
            }
        }
        settle()
        // The split above yields one empty string after the final newline.
        if result.blessed.hasSuffix("\n\n") { result.blessed.removeLast() }
        return result
    }
}
