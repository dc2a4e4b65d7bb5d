// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing

@testable import ToastCore
@testable import ToastProtocol

@Suite("Packed records")
struct PackedRecordTests {
    static func roundTrips(_ record: ToastRecord, sourceLocation: SourceLocation = #_sourceLocation) {
        let packed = PackedRecord(record)
        #expect(packed.id == record.id, sourceLocation: sourceLocation)
        #expect(packed.unpacked == record, sourceLocation: sourceLocation)
        #expect(packed.expiresAt == record.expiresAt, sourceLocation: sourceLocation)
    }

    @Test func everyFieldAtItsExtremesComesBack() {
        var toast = Toast(
            message: "build \u{0} finished ✅ \u{1b}[31m" + String(repeating: "é", count: 300), title: "Ti\ntle", icon: "🍞",
            role: .failure, duration: .seconds(0.1), alignment: .bottom, scene: "scène", reuseID: "",
            progress: .fraction(0.333), dismissible: false, closeButton: true,
            actions: [ToastAction(id: "a", label: "Ä"), ToastAction(id: "", label: String(repeating: "x", count: 200))],
            source: "ci[42]", cancellation: .always, invalidation: [.contextChanged, .presentationDismissed]
        )
        toast.resident = true
        toast.transient = true
        toast.level = -7
        toast.markup = "<b>build</b> &amp; <i>ship</i>"
        toast.category = "transfer.complete"
        toast.desktopEntry = "org.example.Builder"
        toast.soundName = "complete"
        toast.dedupe = false
        for urgency in [ToastUrgency.low, .normal, .critical] {
            toast.urgency = urgency
            for image in [ToastImage.path("/usr/share/icons/x.png"), .pixels(width: 2, height: 1, rgba: [1, 2, 3, 4, 250, 251, 252, 253])] {
                toast.image = image
                Self.roundTrips(ToastRecord(id: 9, toast: toast, state: .queued, repeatCount: 3, createdAt: 1))
            }
        }
        for (created, expires, presented) in [(Int64.min, Int64.max, Int64(0)), (Int64.max, Int64.min, Int64(-1)), (1_763_900_000_123, 1_763_900_004_123, 1_763_900_000_500)] {
            for state in [ToastRecord.State.queued, .shown] {
                Self.roundTrips(ToastRecord(
                    id: .max, toast: toast, state: state, repeatCount: .max, createdAt: created, presentedAt: presented,
                    expiresAt: expires, placement: .max
                ))
            }
        }
        Self.roundTrips(ToastRecord(id: 0, toast: Toast(message: ""), state: .queued, repeatCount: 0, createdAt: 0))
    }

    @Test func everyCaseOfEverySmallFieldComesBack() {
        let durations: [ToastDuration?] = [nil, .short, .long, .longer, .indefinite, .seconds(3), .seconds(0.25)]
        let progresses: [ToastProgress] = [.none, .indeterminate, .fraction(0), .fraction(1), .fraction(0.5)]
        for role in ToastRole.allCases {
            for alignment in ToastAlignment.allCases {
                for cancellation in CancellationPolicy.allCases {
                    for (index, duration) in durations.enumerated() {
                        var toast = Toast(
                            message: "m", role: role, duration: duration, alignment: alignment,
                            progress: progresses[index % progresses.count], cancellation: cancellation,
                            invalidation: InvalidationOptions(rawValue: UInt8(index % 4))
                        )
                        toast.level = index.isMultiple(of: 2) ? nil : index * 40
                        toast.dismissible = index.isMultiple(of: 3)
                        Self.roundTrips(ToastRecord(id: ToastID(index), toast: toast, state: .queued, repeatCount: 1, createdAt: 5))
                    }
                }
            }
        }
    }

    /// Every record the scheduler's property tests produce comes back equal.
    @Test func theSchedulersRecordsComeBack() async {
        await propertyCheck(count: 40, input: SchedulerPropertyTests.steps) { steps in
            var scheduler = SchedulerStateMachine(configuration: SchedulerConfiguration(maxVisible: 2))
            for (index, step) in steps.enumerated() {
                for event in scheduler.handle(SchedulerPropertyTests.command(step), now: Int64(index) * 300).events {
                    if let record = event.record { Self.roundTrips(record) }
                }
            }
        }
    }
}
