// SPDX-License-Identifier: Apache-2.0
import ToastProtocol
import ToastRegex
#if canImport(Glibc)
import Glibc  // fnmatch(3)
#endif

/// What the configuration does to each toast on its way in: the defaults
/// of its role, then the rules, in file order (PROTOCOL.md, section 5.9).
///
/// A pure value applied on the add path, so the daemon stays a function of
/// (state, rules, command, now): the same rules and the same adds give the
/// same events. Running `exec` is the daemon's job; the rules only say what
/// to run, and when (the toast's presentation).
/// What one add may cost the rules, in the worst case, bounded when the
/// configuration is read: matching runs on the event loop, so an
/// adversarial message against many large patterns held every client
/// (64 legal rules took 0.9 s for one 4 KiB message; issue #38). Each
/// pattern costs its steps per byte (`TextPattern.stepsPerByte`) times the
/// longest text it can meet (`ToastLimits`); the sum over every rule must
/// stay within `maxSteps`. Measured on this machine (release build, in
/// process, `toast-bench regex`), the heaviest message pattern took 2.7 ns
/// a step by the sets of states (6.7 ns in the machine's slow phases)
/// against a 4 KiB message that keeps every state alive, about 33 ms for a
/// whole budget (the benchmark's target is 40). The bits now run such a
/// pattern, five to nine times faster (docs/BENCHMARKS.md, "The sets as
/// bits"), and 1,000 rules of patterns made into tables take about 11 ms.
public enum RuleBudget {
    /// The most rules a file may hold.
    public static let maxRules = 1_000
    /// The most bytes of a glob (a regular expression's bound is `BoundedRegex.maxPatternBytes`).
    public static let maxGlobBytes = 256
    /// Steps one add may take over all the rules' patterns.
    public static let maxSteps = 12_000_000

    /// The worst-case steps of one rule's patterns for one toast.
    public static func steps(of match: ToastRule.Match) -> Int {
        (match.source?.stepsPerByte ?? 0) * ToastLimits.sourceBytes
            + (match.title?.stepsPerByte ?? 0) * ToastLimits.titleBytes
            + (match.message?.stepsPerByte ?? 0) * ToastLimits.messageBytes
            + (match.category?.stepsPerByte ?? 0) * ToastLimits.categoryBytes
            + (match.desktopEntry?.stepsPerByte ?? 0) * ToastLimits.desktopEntryBytes
            + (match.icon?.stepsPerByte ?? 0) * ToastLimits.iconBytes
    }
}

public struct ToastRules: Sendable {
    /// Per role, what a toast gets when neither its sender nor a rule said.
    public var roles: [ToastRole: RoleDefaults] = [:] {
        didSet { defaultsByRole = Self.table(roles) }
    }
    /// `roles` as `apply` reads them: by the role's place among the cases,
    /// without hashing the role for every toast.
    private var defaultsByRole: [RoleDefaults?] = Self.table([:])
    public var rules: [ToastRule] = [] {
        didSet { compiled = rules.map(CompiledRule.init) }
    }
    /// The rules as `apply` walks them. Read through a class's constants,
    /// with `Match.matches` inlined, a rule's keys are borrowed in place;
    /// read from an array of structs, each `Match` was copied (a retain and
    /// a release per key) for every rule and every toast: a third of the
    /// rules' cost in the profile.
    private var compiled: [CompiledRule] = []

    private final class CompiledRule: Sendable {
        let match: ToastRule.Match
        let set: ToastRule.Changes
        let drop: Bool
        let exec: [String]?
        /// `rule-off.NAME`, for a named rule.
        let offMode: String?

        init(_ rule: ToastRule) {
            offMode = rule.name.map { ToastRule.offPrefix + $0 }
            match = rule.match
            set = rule.set
            drop = rule.drop
            exec = rule.exec
        }
    }

    public init(roles: [ToastRole: RoleDefaults] = [:], rules: [ToastRule] = []) {
        self.roles = roles
        self.rules = rules
        compiled = rules.map(CompiledRule.init)
        defaultsByRole = Self.table(roles)
    }

    private static func table(_ roles: [ToastRole: RoleDefaults]) -> [RoleDefaults?] {
        ToastRole.allCases.map { roles[$0] }
    }

    public var isEmpty: Bool { rules.isEmpty && roles.isEmpty }

    /// What the rules decided about one toast.
    public struct Outcome: Sendable, Hashable {
        /// Never shown; it ends `cancelled` with reason `dropped` (and is kept in history).
        public var drop = false
        /// The commands to run when the toast is presented, in rule order.
        public var exec: [[String]] = []
        /// The indexes of the rules that matched, in order.
        public var matched: [Int] {
            (0..<Self.maskedRules).filter { firstMatched & (1 << $0) != 0 } + laterMatched
        }
        /// Which of the first 64 rules matched, a bit each, and the later
        /// ones that did: an add that matched a rule no longer allocates an
        /// array (only tests and the benchmarks ask for `matched`).
        private var firstMatched: UInt64 = 0
        private var laterMatched: [Int] = []
        private static let maskedRules = UInt64.bitWidth

        mutating func noteMatch(_ index: Int) {
            if index < Self.maskedRules {
                firstMatched |= 1 << index
            } else {
                laterMatched.append(index)
            }
        }
        /// A rule or the role's defaults set a field that `Toast.validate()`
        /// checks (the scene, the icon or the duration): the toast must be
        /// checked again before it is added.
        public var changedCheckedFields = false

        public init() {}
    }

    /// Applies every matching rule in order to `toast`, then its role's
    /// defaults to the fields in `unset` that no rule set. Each rule sees
    /// the toast as the rules before it left it, so one rule may raise a
    /// toast to `failure` and a later one match failures.
    public func apply(to toast: inout Toast, unset: ToastFieldSet = [], modes: [String]) -> Outcome {
        var outcome = Outcome()
        var unset = unset
        if !compiled.isEmpty {
            // No rule changes the texts, so their bytes are taken once, not per rule.
            RuleTexts.of(source: toast.source, title: toast.title, message: toast.message) { texts in
                compiled.withUnsafeBufferPointer { rules in
                    for index in rules.indices {
                        // Borrowed, not retained (`compiled` holds every rule
                        // while `apply` runs); `compiled[index].match` even
                        // copied the match.
                        Unmanaged.passUnretained(rules[index])._withUnsafeGuaranteedRef { rule in
                            if let off = rule.offMode, modes.contains(off) { return }
                            guard rule.match.matches(&toast, texts, modes: modes) else { return }
                            outcome.noteMatch(index)
                            if rule.set.changesCheckedFields { outcome.changedCheckedFields = true }
                            rule.set.apply(to: &toast, unset: &unset)
                            if rule.drop { outcome.drop = true }
                            if let exec = rule.exec { outcome.exec.append(exec) }
                        }
                    }
                }
            }
        }
        if let defaults = defaultsByRole[toast.role.caseIndex] {
            if toast.duration == nil, unset.contains(.duration), let duration = defaults.duration {
                toast.duration = duration
                outcome.changedCheckedFields = true
            }
            if unset.contains(.alignment), let alignment = defaults.alignment { toast.alignment = alignment }
            if unset.contains(.dismissible), let dismissible = defaults.dismissible { toast.dismissible = dismissible }
        }
        return outcome
    }
}

public struct RoleDefaults: Sendable, Hashable {
    public var duration: ToastDuration?
    public var alignment: ToastAlignment?
    public var dismissible: Bool?

    public init(duration: ToastDuration? = nil, alignment: ToastAlignment? = nil, dismissible: Bool? = nil) {
        self.duration = duration
        self.alignment = alignment
        self.dismissible = dismissible
    }
}

/// One `[[rule]]`: when every key of `match` matches, `set`, `drop` and `exec` apply.
public struct ToastRule: Sendable {
    public var match = Match()
    public var set = Changes()
    public var drop = false
    /// A command (argv, no shell) to run when the toast is presented.
    public var exec: [String]?
    /// Where the rule was written, for logs and errors ("line 12").
    public var origin: String?
    /// A name (`name = "quiet-chat"`): `toastctl rule NAME disable|enable|toggle` switches it.
    public var name: String?

    /// A switched-off named rule is kept among the modes as `rule-off.NAME`,
    /// so the switch persists across restarts exactly as modes do.
    public static let offPrefix = Request.ModeChange.ruleOffPrefix

    public static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    public init(match: Match = Match(), set: Changes = Changes(), drop: Bool = false, exec: [String]? = nil) {
        self.match = match
        self.set = set
        self.drop = drop
        self.exec = exec
    }

    public struct Match: Sendable {
        /// The toast's source (`app` is the same key), a glob.
        public var source: TextPattern?
        public var role: ToastRole?
        public var scene: String?
        public var alignment: ToastAlignment?
        /// A missing title matches as the empty string.
        public var title: TextPattern?
        public var message: TextPattern?
        /// Active when this mode is.
        public var mode: String?
        /// Freedesktop's hints, as mako's and dunst's criteria read them: a
        /// glob each for the category, the desktop entry and the icon (a
        /// missing one matches as the empty string), the urgency, and
        /// whether the toast has any action.
        public var category: TextPattern?
        public var desktopEntry: TextPattern?
        public var icon: TextPattern?
        public var urgency: ToastUrgency?
        public var actionable: Bool?

        public init() {}

        public func matches(_ toast: Toast, modes: [String]) -> Bool {
            var toast = toast
            return RuleTexts.of(source: toast.source, title: toast.title, message: toast.message) { matches(&toast, $0, modes: modes) }
        }

        /// `toast` is only read; inout, the rules' loop hands over the
        /// toast it is changing without a copy (a retain and a release per rule).
        @inline(__always)
        func matches(_ toast: inout Toast, _ texts: RuleTexts, modes: [String]) -> Bool {
            // Optional chaining borrows each key where `if let` would copy
            // it (a retain and a release per key, per rule, per toast).
            if role != nil && toast.role != role { return false }
            if alignment != nil && toast.alignment != alignment { return false }
            if scene.map({ $0 == toast.scene }) == false { return false }
            if mode.map(modes.contains) == false { return false }
            if source?.matches(texts.source) == false { return false }
            if title?.matches(texts.title) == false { return false }
            if message?.matches(texts.message) == false { return false }
            if urgency != nil && toast.urgency != urgency { return false }
            if actionable.map({ $0 == !toast.actions.isEmpty }) == false { return false }
            if category?.matches(toast.category ?? "") == false { return false }
            if desktopEntry?.matches(toast.desktopEntry ?? "") == false { return false }
            if icon?.matches(toast.icon ?? "") == false { return false }
            return true
        }
    }

    /// What `set` may change; `nil` leaves a field as it is.
    public struct Changes: Sendable, Hashable {
        public var role: ToastRole?
        public var duration: ToastDuration?
        public var alignment: ToastAlignment?
        public var scene: String?
        public var icon: String?
        public var dismissible: Bool?
        public var level: Int?

        public init() {}

        /// Whether it sets a field that `Toast.validate()` checks.
        var changesCheckedFields: Bool { scene != nil || icon != nil || duration != nil }

        func apply(to toast: inout Toast, unset: inout ToastFieldSet) {
            if let role { toast.role = role }
            if let duration {
                toast.duration = duration
                unset.remove(.duration)
            }
            if let alignment {
                toast.alignment = alignment
                unset.remove(.alignment)
            }
            if let scene { toast.scene = scene }
            if let icon { toast.icon = icon }
            if let dismissible {
                toast.dismissible = dismissible
                unset.remove(.dismissible)
            }
            if let level { toast.level = level }
        }
    }
}

/// A glob (fnmatch(3): `*`, `?`, `[...]`) or a bounded regular expression.
///
/// Two optionals rather than an enum with two payloads: such an enum keeps
/// its case in spare bits of the payloads' pointers, which hides them from
/// LeakSanitizer (the fuzzer then reports live rules as leaks). A class, so
/// that a rule holds one pointer per text it matches: as a struct of a glob
/// and a regex, each rule tried loaded some forty words of its match onto
/// the stack for every toast.
public final class TextPattern: Sendable {
    private let globPattern: Glob?
    private let regexPattern: BoundedRegex?

    private init(globPattern: Glob?, regexPattern: BoundedRegex?) {
        self.globPattern = globPattern
        self.regexPattern = regexPattern
    }

    public static func glob(_ glob: Glob) -> TextPattern { TextPattern(globPattern: glob, regexPattern: nil) }
    public static func regex(_ regex: BoundedRegex) -> TextPattern { TextPattern(globPattern: nil, regexPattern: regex) }

    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(matches)
    }

    /// The most steps matching may take for each byte of the text, in the
    /// worst case: the units of the rules' budget (`RuleBudget`).
    public var stepsPerByte: Int {
        if let regexPattern { return regexPattern.stepsPerByte }
        return globPattern?.stepsPerByte ?? 0
    }

    /// Whether the pattern matches `utf8`, valid UTF-8 (a `String`'s bytes).
    func matches(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        if let globPattern { return globPattern.matches(utf8) }
        return regexPattern?.matches(utf8) ?? true
    }
}

/// A toast's texts as the rules match them: the UTF-8 bytes of each, a
/// missing source or title as the empty text.
struct RuleTexts {
    let source: UnsafeBufferPointer<UInt8>
    let title: UnsafeBufferPointer<UInt8>
    let message: UnsafeBufferPointer<UInt8>

    /// Calls `body` with the bytes of the three texts, each taken once
    /// (for a native string, its own storage; for a small one, a copy on the stack).
    static func of<Result>(source: String?, title: String?, message: String, _ body: (RuleTexts) -> Result) -> Result {
        var source = source ?? ""
        var title = title ?? ""
        var message = message
        return source.withUTF8 { source in
            title.withUTF8 { title in message.withUTF8 { body(RuleTexts(source: source, title: title, message: $0)) } }
        }
    }
}

/// A glob as fnmatch(3) reads it without flags (`*` and `?` match any
/// character, `/` and a leading `.` included). The shapes users write most
/// (`exact`, `prefix*`, `*suffix`, `*part*`, and any other of only `*`
/// and `?`) are compared on UTF-8 bytes directly, which is what fnmatch
/// would do in toastd's C locale, without converting both strings to C
/// strings on every toast; bracket expressions and escapes go to fnmatch.
public struct Glob: Sendable, ExpressibleByStringLiteral {
    public let pattern: String
    private let shape: Shape
    /// The literal part of the shapes compared on bytes (all of a
    /// `.wildcards` pattern).
    private let bytes: [UInt8]
    /// The pattern for fnmatch, for `.general`.
    private let cPattern: ContiguousArray<CChar>

    // Plain cases, with the bytes beside them: an enum whose payloads hold
    // the arrays would keep its case in the pointers' spare bits, where
    // LeakSanitizer cannot see them (the fuzzer reported them as leaks).
    private enum Shape: Sendable {
        /// `wildcards`: only `*` and `?` (no `[` or `\\`), matched on bytes.
        case anything, exact, prefix, suffix, contains, wildcards, general
    }

    public init(_ pattern: String) {
        self.pattern = pattern
        let bytes = Array(pattern.utf8)
        let special: (UInt8) -> Bool = { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "\\") }
        let star = UInt8(ascii: "*")
        let leading = bytes.first == star
        let trailing = bytes.count > 1 && bytes.last == star
        let middle = Array(bytes.dropFirst(leading ? 1 : 0).dropLast(trailing ? 1 : 0))
        cPattern = pattern.utf8CString
        let shape: Shape
        if bytes == [star] {
            shape = .anything
        } else if bytes.contains(UInt8(ascii: "[")) || bytes.contains(UInt8(ascii: "\\")) {
            shape = .general
        } else if middle.contains(where: special) {
            shape = .wildcards
        } else if leading && trailing {
            shape = .contains
        } else if leading {
            shape = .suffix
        } else if trailing {
            shape = .prefix
        } else {
            shape = .exact
        }
        self.shape = shape
        self.bytes = shape == .wildcards ? bytes : middle
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Worst-case steps per byte of text: one for the shapes compared
    /// directly; for `*` and `?` patterns and fnmatch's, each position of
    /// the text may be tried against each byte of the pattern.
    public var stepsPerByte: Int {
        switch shape {
        case .anything, .exact, .prefix, .suffix, .contains: 1
        case .wildcards, .general: max(1, pattern.utf8.count)
        }
    }

    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(matches)
    }

    /// Whether the glob matches `text`, a string's UTF-8 bytes.
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { literal in
            switch shape {
            case .anything:
                return true
            case .exact:
                return text.count == literal.count && Self.equal(literal, text, at: 0)
            case .prefix:
                return text.count >= literal.count && Self.equal(literal, text, at: 0)
            case .suffix:
                return text.count >= literal.count && Self.equal(literal, text, at: text.count - literal.count)
            case .contains:
                return literal.isEmpty || BoundedRegex.find(literal, in: text)
            case .wildcards:
                return Self.matchWildcards(literal, text)
            case .general:
                // fnmatch reads C strings: the text with a NUL after it.
                return withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { cText in
                    UnsafeMutableRawBufferPointer(cText).copyMemory(from: UnsafeRawBufferPointer(text))
                    cText[text.count] = 0
                    return cPattern.withUnsafeBufferPointer { fnmatch($0.baseAddress!, cText.baseAddress!, 0) == 0 }
                }
            }
        }
    }

    /// Whether `literal` occurs in `text` at `offset` (which leaves room for it).
    private static func equal(_ literal: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        literal.isEmpty || memcmp(text.baseAddress! + offset, literal.baseAddress!, literal.count) == 0
    }

    /// `*` and `?` over bytes, as fnmatch reads them in the C locale (where
    /// `?` is one byte): on a mismatch, the last `*` takes more of the text,
    /// up to the next place where the byte after it occurs (memchr). A
    /// later `*` never needs an earlier one to give back, so one resume
    /// point is enough, and a text costs at most its length times the pattern's.
    private static func matchWildcards(_ pattern: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let star = UInt8(ascii: "*")
        let any = UInt8(ascii: "?")
        /// Where, from `offset` on, the text may next match `expected`: the
        /// offset itself for a wildcard, else the byte's next occurrence.
        func next(_ expected: UInt8, from offset: Int) -> Int? {
            guard offset <= text.count else { return nil }
            if expected == any || expected == star { return offset }
            guard offset < text.count, let hit = memchr(text.baseAddress! + offset, Int32(expected), text.count - offset) else { return nil }
            return UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - text.baseAddress!
        }
        var patternIndex = 0
        var textIndex = 0
        // The pattern just after the last `*` met, and where in the text it was last tried.
        var resume: (pattern: Int, text: Int)?
        while textIndex < text.count || (patternIndex < pattern.count && pattern[patternIndex] == star) {
            if patternIndex < pattern.count {
                let expected = pattern[patternIndex]
                if expected == star {
                    patternIndex += 1
                    // A trailing `*` takes the rest of the text.
                    guard patternIndex < pattern.count else { return true }
                    guard let start = next(pattern[patternIndex], from: textIndex) else { return false }
                    resume = (patternIndex, start)
                    textIndex = start
                    continue
                }
                if expected == any || expected == text[textIndex] {
                    patternIndex += 1
                    textIndex += 1
                    continue
                }
            }
            guard let last = resume, let start = next(pattern[last.pattern], from: last.text + 1) else { return false }
            resume = (last.pattern, start)
            patternIndex = last.pattern
            textIndex = start
        }
        return patternIndex == pattern.count
    }
}

