// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastCore

/// Validates the transcripts, and a large sample of the encoder's output,
/// against the JSON Schemas in protocol/schema, with protocol/validate.py
/// (Python's jsonschema, installed by .ci/run).
@Suite("Protocol schemas")
struct SchemaTests {
    static let protocolDirectory = TranscriptTests.examples.deletingLastPathComponent()

    @Test func transcriptsAndEncoderOutputMatchTheSchemas() throws {
        var lines: [String] = []
        func add(_ kind: String, _ value: JSONValue) { lines.append(kind + "\t" + value.serialized) }

        // Every kind of event and reply the core produces, from a random run.
        var service = ToastService()
        let steps = (0..<3_000).map { ($0 &* 7_919) % 99_991 }
        var now: ToastInstant = 0
        for step in steps {
            if let advance = SchedulerPropertyTests.advance(step) {
                now += advance
                for case .publish(let event) in service.advance(to: now) { add("event", WireEncoder.event(event)) }
                continue
            }
            let command = SchedulerPropertyTests.command(step)
            let request = RequestEnvelope(ref: .int(Int64(step)), request: .command(command))
            let response = service.respond(to: request, defaultSource: "tester[1]", now: now)
            if let reply = response.reply {
                add("reply", reply)
                if let result = reply["result"] { add("result:" + Self.op(of: command), result) }
            }
            for event in response.events { add("event", WireEncoder.event(event)) }
            if step % 50 == 0 {
                add("event", WireEncoder.snapshotEvent(service.scheduler.snapshot(), instance: service.instance, time: now))
                add("result:list", WireEncoder.snapshot(service.scheduler.snapshot(), instance: service.instance))
                let status = WireEncoder.status(
                    service.scheduler, instance: service.instance, connections: 3, subscribers: 1, uptimeMilliseconds: now
                )
                add("result:status", status)
            }
        }
        // The directives' results, as the daemon builds them.
        service.connect(1, source: nil)
        let subscribeLines = service.subscribe(1, Request.Subscribe(since: 5), ref: nil, now: now)
        if let reply = try? JSONValue.parse(subscribeLines[0]) {
            add("reply", reply)
            add("result:subscribe", reply["result"] ?? .null)
        }
        add("result:hello", WireEncoder.hello(instance: service.instance))
        #expect(lines.count > 3_000)

        let file = FileManager.default.temporaryDirectory.appending(path: "toastd-schema-\(getpid()).lines")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", Self.protocolDirectory.appending(path: "validate.py").path, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains(" 0 failed"), "\(text)")
    }

    static func op(of command: SchedulerCommand) -> String {
        switch command {
        case .add, .drop: "add"
        case .update: "update"
        case .remove: "remove"
        case .dismiss: "dismiss"
        case .invoke: "invoke"
        case .clear: "clear"
        case .pause: "pause"
        case .resume: "resume"
        case .inhibit: "inhibit"
        case .setModes: "mode"
        case .endSource: "endSource"
        case .tick: "tick"
        }
    }
}
