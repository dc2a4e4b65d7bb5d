// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
/// `status`'s result: the scheduler's counters, which only the scheduler
/// knows, in the protocol's words.
extension WireEncoder {
    /// The result of `status`; the daemon supplies what only it knows.
    public static func status(
        _ scheduler: SchedulerStateMachine, instance: String, connections: Int, subscribers: Int,
        uptimeMilliseconds: Int64
    ) -> JSONValue {
        [
            "server": .string(ProtocolInfo.server),
            "instance": .string(instance),
            "shown": .int(Int64(scheduler.shownCount)),
            "queued": .int(Int64(scheduler.queuedCount)),
            "paused": .bool(scheduler.isPaused),
            "pauseLevel": .int(Int64(scheduler.pauseLevel)),
            "pausedLevel": .int(Int64(scheduler.pausedLevel)),
            "modes": .array(scheduler.modes.map { .string($0) }),
            "connections": .int(Int64(connections)),
            "subscribers": .int(Int64(subscribers)),
            "lastSequence": .int(Int64(scheduler.lastSequence)),
            "uptimeMs": .int(uptimeMilliseconds),
        ]
    }
}
