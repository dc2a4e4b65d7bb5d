// SPDX-License-Identifier: Apache-2.0
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import ToastConfig
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
        // A transcript's configuration, if it has one, is the .toml file of its name.
        let configURL = url.deletingPathExtension().appendingPathExtension("toml")
        var config: ToastdConfig?
        if FileManager.default.fileExists(atPath: configURL.path) {
            config = try ToastdConfig.parse(try String(contentsOf: configURL, encoding: .utf8), path: configURL.path).get()
        }
        let replayed = try Transcript.replay(text, config: config)
        if ProcessInfo.processInfo.environment["TOASTD_BLESS_TRANSCRIPTS"] == "1" {
            try replayed.blessed.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(replayed.mismatches.isEmpty, "\(name):\n\(replayed.mismatches.joined(separator: "\n"))")
        #expect(replayed.requests > 0)
    }
}

/// A transcript, line by line (PROTOCOL.md, section 7):
///
/// - `@T` sets the virtual clock to T ms; timers due by then fire at their instants.
/// - `N> JSON` is a request on connection N (opened on first use; its
///   default source is `tester[1000+N]`, as a peer `name[pid]` would be).
/// - `N< JSON` is the reply on connection N.
/// - `*R JSON` is an event, and R says who receives it: `S` is an observer
///   that subscribed to everything before the first line, digits are
///   connections, comma-separated (`*S,1`).
/// - `close N` closes connection N (a source it bound ends).
/// - `!run JSON` is a command a rule's `exec` runs: `argv` and the `toast` id.
enum Transcript {
    struct Replayed {
        var mismatches: [String] = []
        var blessed = ""
        var requests = 0
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The observer `S` is connection 0.
    static let observer = 0

    static func source(of connection: Int) -> String { "tester[\(1000 + connection)]" }

    static func replay(_ text: String, config: ToastdConfig? = nil) throws -> Replayed {
        var service = ToastService()
        if let config {
            _ = service.reconfigure(config.scheduler(overriding: .init()), rules: config.rules, now: 0)
        }
        service.connect(observer, source: nil)
        _ = service.subscribe(observer, Request.Subscribe(snapshot: false), ref: nil, now: 0)
        var open: Set<Int> = []
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

        func recipients(_ connections: [Int]) -> String {
            connections.map { $0 == observer ? "S" : String($0) }.joined(separator: ",")
        }

        func output(_ effects: [SchedulerEffect]) {
            for publication in service.publish(effects) where !publication.deliveries.isEmpty {
                let to = recipients(publication.deliveries.map(\.connection))
                produced.append("*\(to) " + String(decoding: publication.line, as: UTF8.self))
            }
            for run in service.takeRuns() {
                let line: JSONValue = ["argv": .array(run.argv.map { .string($0) }), "toast": .int(Int64(run.record.id))]
                produced.append("!run " + line.serialized + "\n")
            }
        }


        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let marker = line.firstIndex(of: " "), line.hasPrefix("*") || line.hasPrefix("!") || line[..<marker].hasSuffix("<") {
                let json = try JSONValue.parse(String(line[line.index(after: marker)...]))
                expected.append(String(line[...marker]) + json.serialized + "\n")
                continue
            }
            settle()
            if let marker = line.firstIndex(of: " "), line[..<marker].hasSuffix(">"),
                let connection = Int(line[..<line.index(before: marker)]), connection > 0
            {
                result.blessed += line + "\n"
                result.requests += 1
                if open.insert(connection).inserted { service.connect(connection, source: source(of: connection)) }
                let request = Array(line[line.index(after: marker)...].utf8)
                let response = service.respond(toLine: request, from: connection, now: now)
                var replies: [[UInt8]]
                switch response.directive {
                case .subscribe(let subscribe)?:
                    replies = service.subscribe(connection, subscribe, ref: response.ref, now: now)
                case .status?:
                    throw Malformed(description: "transcripts cannot hold status (it counts live connections): \(line)")
                case .reload?:
                    throw Malformed(description: "transcripts cannot reload (a transcript's rules are its .toml file): \(line)")
                case .hello?, nil:
                    replies = [response.replyLine!]
                }
                produced.append("\(connection)< " + String(decoding: replies.removeFirst(), as: UTF8.self))
                produced += replies.map { "*\(connection) " + String(decoding: $0, as: UTF8.self) }
                output(response.effects)
            } else if line.hasPrefix("close "), let connection = Int(line.dropFirst(6)), open.remove(connection) != nil {
                result.blessed += line + "\n"
                output(service.disconnect(connection, now: now))
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
