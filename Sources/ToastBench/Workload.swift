// SPDX-License-Identifier: Apache-2.0
import ToastCore
/// Realistic add requests, as the ingest benchmark and the soak send them:
/// every role, a third deduped by reuse identifier (so they update in
/// place), expiring durations from 0.1 s to 2 s (so timers fire during the
/// run), all three alignments and a few scenes, some with titles, actions
/// and progress. Deterministic for a given seed.
public struct Workload: Sendable {
    public static let roles: [ToastRole] = [.plain, .info, .success, .warning, .failure]
    public static let alignments: [ToastAlignment] = [.top, .center, .bottom]
    public static let durations: [ToastDuration] = [.seconds(0.1), .seconds(0.25), .seconds(0.5), .seconds(1), .seconds(2), .short]

    public init() {}

    /// The `index`-th add line of stream `stream`, with its newline.
    public func addLine(stream: Int, index: Int) -> [UInt8] {
        let mix = Int((UInt(bitPattern: index) &* 2_654_435_761 &+ UInt(bitPattern: stream) &* 40_503) >> 1)
        var toast = Toast(
            message: "build \(stream)-\(index) finished in \(mix % 997) s", role: Self.roles[mix % 5],
            duration: Self.durations[(mix >> 5) % Self.durations.count], alignment: Self.alignments[(mix >> 3) % 3],
            scene: "s\((mix >> 7) % 4)"
        )
        if mix % 3 == 0 { toast.reuseID = "job-\(stream)-\((mix >> 9) % 16)" }
        if mix % 4 == 1 { toast.title = "CI" }
        if mix % 8 == 2 { toast.actions = [ToastAction(id: "open", label: "Open")] }
        if mix % 8 == 5 { toast.progress = .fraction(Double(mix % 10) / 10) }
        return RequestLine.add(toast)
    }

    /// `count` lines of one stream, concatenated.
    public func batch(stream: Int, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 200)
        for index in 0..<count { bytes += addLine(stream: stream, index: index) }
        return bytes
    }
}
