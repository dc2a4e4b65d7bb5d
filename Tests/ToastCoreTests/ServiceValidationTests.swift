// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastCore
@testable import ToastProtocol

/// A toast the wire decoder made has been validated, so the scheduler does
/// not check it again, unless something after the decoder set a field
/// that validation checks. Each such field must still be caught.
@Suite("The service: what is checked again after the decoder")
struct ServiceValidationTests {
    static let add = Array(#"{"op":"add","toast":{"message":"built"}}"#.utf8)

    static func refusal(_ response: ToastService.Response) -> ToastError? {
        guard case .failure(let error)? = response.schedulerResult else { return nil }
        return error
    }

    @Test func aDefaultSourceOfBlanksIsRefused() {
        var service = ToastService()
        let response = service.respond(toLine: Self.add, defaultSource: "   ", now: 0)
        #expect(Self.refusal(response)?.field == "toast.source")
        #expect(service.scheduler.count == 0)
    }

    /// Rules made in code (not read from a file, whose values are checked
    /// at load) may set anything: the scheduler checks what they set.
    @Test(arguments: ["scene", "icon", "duration"])
    func whatARuleSetsIsChecked(field: String) {
        var service = ToastService()
        var rule = ToastRule()
        switch field {
        case "scene": rule.set.scene = "two words"
        case "icon": rule.set.icon = " "
        default: rule.set.duration = .seconds(0)
        }
        _ = service.reconfigure(SchedulerConfiguration(), rules: ToastRules(rules: [rule]), now: 0)
        let response = service.respond(toLine: Self.add, defaultSource: "app", now: 0)
        #expect(Self.refusal(response)?.field == "toast.\(field)")
        #expect(service.scheduler.count == 0)
    }

    @Test func aRoleDefaultDurationIsChecked() {
        var service = ToastService()
        let rules = ToastRules(roles: [.plain: RoleDefaults(duration: .seconds(100_000))])
        _ = service.reconfigure(SchedulerConfiguration(), rules: rules, now: 0)
        let response = service.respond(toLine: Self.add, defaultSource: "app", now: 0)
        #expect(Self.refusal(response)?.field == "toast.duration")
    }

    @Test func aValidAddIsAddedWithTheDefaultSourceAndTheRules() {
        var service = ToastService()
        var rule = ToastRule()
        rule.set.level = 50
        _ = service.reconfigure(SchedulerConfiguration(), rules: ToastRules(rules: [rule]), now: 0)
        let response = service.respond(toLine: Self.add, defaultSource: "app", now: 0)
        guard case .success(.added(let record, _, _))? = response.schedulerResult else {
            Issue.record("expected an add, got \(String(describing: response.schedulerResult))")
            return
        }
        #expect(record.toast.source == "app")
        #expect(record.toast.level == 50)
    }
}
