// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// Request lines for the load generators, encoded by ToastCore's own
/// encoder: the benchmarks send what a real client sends, and a change to
/// the wire format changes them too.
enum RequestLine {
    /// The request's line, with its newline.
    static func bytes(_ request: Request) -> [UInt8] { WireEncoder.line(WireEncoder.request(request)) }

    static func add(_ toast: Toast) -> [UInt8] { bytes(.command(.add(toast))) }

    static let subscribeLive = bytes(.subscribe(Request.Subscribe(snapshot: false)))
    static let status = bytes(.status)
    static let list = bytes(.list(EventFilter()))
    static let clearAll = bytes(.command(.clear(ClearScope(force: true))))

    /// `line` with the first occurrence of `marker` replaced by `replacement`:
    /// how the soak turns a valid request into a hostile one.
    static func corrupting(_ line: [UInt8], _ marker: String, with replacement: [UInt8]) -> [UInt8] {
        let needle = Array(marker.utf8)
        guard let start = line.indices.first(where: { line[$0...].starts(with: needle) }) else { return line }
        return Array(line[..<start]) + replacement + Array(line[(start + needle.count)...])
    }
}
