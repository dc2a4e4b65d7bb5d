// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastRegex

/// Turns arbitrary bytes into a session with the scheduler, the way the
/// fuzzer and the regression tests replay it.
///
/// The bytes are split into lines. A line `@N` lets N milliseconds pass on
/// the virtual clock (at most a day), firing due timers at their instants.
/// A line `~SOURCE` switches the connection's default source (as a new
/// client would), a line `!N` puts rule set N in force (a reload; see
/// `ruleSets`), a line `^` closes the connection (which releases its
/// inhibitor), a line `%BYTES` is read as a live toast from the store
/// (`storedToastProblem`), and any other line is a protocol request, handled exactly
/// as toastd handles a line from a socket (and the add fast path must decode
/// it as the general decoder does). After every step the
/// `SchedulerInvariants` are checked, and every reply must be JSON that
/// reads back to itself. At the end every toast is ended, and each must
/// have ended exactly once.
public enum FuzzInput {
    public static let configuration = SchedulerConfiguration(
        maxVisibleTop: 2, maxVisibleCenter: 1, maxVisibleBottom: 3, maxToasts: 64, maxToastsPerSource: 24
    )
    /// At most this many lines are replayed, so one input stays fast.
    public static let maximumLines = 400
    /// Replies checked to read back: the first this many, then one in this many.
    public static let replyCheckInterval = 8

    /// What `!N` reloads: no rules, then two sets that use every action and
    /// every kind of match (sources, roles, modes, text globs, regexes).
    public static let ruleSets: [ToastRules] = {
        func rule(_ build: (inout ToastRule) -> Void) -> ToastRule {
            var rule = ToastRule()
            build(&rule)
            return rule
        }
        let first = ToastRules(
            roles: [.failure: RoleDefaults(duration: .indefinite, alignment: .bottom)],
            rules: [
                rule { $0.match.source = .glob("chatty*"); $0.drop = true },
                rule { $0.match.source = .glob("ci*"); $0.match.role = .info; $0.set.role = .failure },
                rule { $0.match.role = .failure; $0.exec = ["true"] },
                rule { $0.match.mode = "presentation"; $0.set.scene = "quiet" },
                rule { $0.match.mode = "dnd"; $0.drop = true },
                rule { $0.match.message = .regex(try! BoundedRegex("(a|aa)*b|^x+$")); $0.set.level = 100 },
            ]
        )
        let second = ToastRules(
            roles: [.warning: RoleDefaults(duration: .seconds(0.5), dismissible: false)],
            rules: [
                rule { $0.match.title = .glob("*"); $0.set.alignment = .center },
                rule { $0.match.alignment = .bottom; $0.set.duration = .short; $0.exec = ["true"] },
                rule { $0.match.scene = "default"; $0.match.role = .plain; $0.set.level = 60 },
            ]
        )
        return [ToastRules(), first, second]
    }()

    /// Replays `bytes` and returns every broken promise (empty if none).
    public static func run(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var service = ToastService(configuration: configuration)
        var invariants = SchedulerInvariants(configuration: configuration)
        var now: ToastInstant = 0
        var source = "fuzz"
        var replyViolations: [String] = []
        var checked = 0

        for line in lines(of: bytes, upTo: maximumLines) {
            switch line.first {
            case UInt8(ascii: "@"):
                now += milliseconds(line.dropFirst())
                invariants.observe(events(of: service.advance(to: now)))
            case UInt8(ascii: "~"):
                source = String(decoding: line.dropFirst().prefix(32), as: UTF8.self)
            case UInt8(ascii: "!"):
                let rules = ruleSets[Int(milliseconds(line.dropFirst())) % ruleSets.count]
                invariants.observe(events(of: service.reconfigure(configuration, rules: rules, now: now)))
            case UInt8(ascii: "^"):
                invariants.observe(events(of: service.disconnect(0, now: now)))
            case UInt8(ascii: "%"):
                if let problem = storedToastProblem(line.dropFirst()), replyViolations.count < 5 { replyViolations.append(problem) }
            default:
                let (decoded, agrees) = WireDecoder.decodeBothWays(UnsafeBufferPointer(rebasing: line))
                if !agrees, replyViolations.count < 5 {
                    replyViolations.append("the add fast path decodes \(String(decoding: line.prefix(200), as: UTF8.self)) unlike the general decoder")
                }
                let response = service.respond(to: decoded, defaultSource: source, now: now)
                invariants.observe(response.events)
                // Every reply of a short input, then one in `replyCheckInterval`:
                // the reply of a list or status repeats the whole state, and
                // checking each was half of an execution's time.
                checked += 1
                if checked <= replyCheckInterval || checked % replyCheckInterval == 0, let problem = readsBack(response) {
                    if replyViolations.count < 5 { replyViolations.append(problem) }
                }
            }
            for run in service.takeRuns() where service.scheduler.state(of: run.record.id) != .shown {
                // A command runs when its toast is presented (or re-added while shown).
                if replyViolations.count < 5 { replyViolations.append("exec for toast \(run.record.id), which is not shown") }
            }
            invariants.check(service.scheduler, now: now)
        }
        var scheduler = service.scheduler
        invariants.finish(&scheduler, now: now)
        return replyViolations + invariants.violations
    }

    public static func run(_ bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBufferPointer { run($0) }
    }

    /// The input's first `limit` lines, empty ones included, found with `memchr`: a loop
    /// over the bytes here would be instrumented, and each byte's
    /// comparison a callback into libFuzzer.
    static func lines(of bytes: UnsafeBufferPointer<UInt8>, upTo limit: Int) -> [UnsafeBufferPointer<UInt8>.SubSequence] {
        var lines: [UnsafeBufferPointer<UInt8>.SubSequence] = []
        var start = 0
        while let end = newline(in: bytes, from: start) {
            if lines.count == limit { return lines }
            lines.append(bytes[start..<end])
            start = end + 1
        }
        if lines.count < limit { lines.append(bytes[start...]) }
        return lines
    }

    /// The offset of the first newline from `start` on, if any.
    static func newline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    static func events(of effects: [SchedulerEffect]) -> [ToastEvent] {
        effects.compactMap { effect in
            if case .publish(let event) = effect { return event }
            return nil
        }
    }

    /// Bytes read as a stored live toast (`StoredToast`, which a damaged
    /// disk or another program may have written) are damage, or a toast
    /// the wire would take that stores back to bytes reading as itself;
    /// and a restart's skim of them agrees with the full check.
    static func storedToastProblem(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> String? {
        if let problem = StoredToast.skimDisagreement(id: 1, from: UnsafeBufferPointer(rebasing: bytes)) { return problem }
        guard let record = try? StoredToast.record(id: 1, from: UnsafeBufferPointer(rebasing: bytes)) else { return nil }
        do {
            try record.toast.validate()
        } catch {
            return "a stored toast read as one the wire refuses: \(error)"
        }
        let again = StoredToast.withBytes(of: record) { try? StoredToast.record(id: 1, from: $0) }
        return again == record ? nil : "a stored toast does not read back as itself once stored again"
    }

    /// Decimal digits as milliseconds, capped at one day; anything else is 1 ms.
    static func milliseconds(_ digits: UnsafeBufferPointer<UInt8>.SubSequence) -> ToastInstant {
        var value: ToastInstant = 0
        for byte in digits.prefix(9) {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            value = value * 10 + ToastInstant(byte - UInt8(ascii: "0"))
        }
        return min(max(value, 1), 86_400_000)
    }

    /// The reply's line, as toastd writes it (scheduler replies go straight
    /// to bytes), must be one line of JSON that reads back to the reply's
    /// value: so the direct encoder is held to the generic one on every
    /// reply checked, and neither can write what a client cannot parse.
    static func readsBack(_ response: ToastService.Response) -> String? {
        guard let line = response.replyLine, let reply = response.reply else { return nil }
        return readsBack(line, as: reply)
    }

    static func readsBack(_ line: [UInt8], as reply: JSONValue) -> String? {
        let text = { String(decoding: line.prefix(200), as: UTF8.self) }
        let firstNewline = line.withUnsafeBufferPointer { newline(in: $0, from: 0) }
        guard !line.isEmpty, firstNewline == line.count - 1 else {
            return "the reply \(text()) is not one line"
        }
        guard let parsed = try? JSONValue.parse(line.dropLast()) else { return "the reply \(text()) is not valid JSON" }
        // Equal values are the common case; a number may read back as
        // another case of the same value, so only then compare the texts.
        guard parsed == reply || parsed.serialized == reply.serialized else {
            return "the reply \(text()) does not read back to its value"
        }
        return nil
    }
}
