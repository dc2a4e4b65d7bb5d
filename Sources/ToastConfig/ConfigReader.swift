// SPDX-License-Identifier: Apache-2.0
import ToastCore
import ToastRegex

/// Reads a parsed file into a `ToastdConfig`, collecting every problem
/// with its position instead of stopping at the first.
struct ConfigReader {
    let locator: ConfigLocator
    private(set) var problems: [ToastdConfig.Problem] = []

    init(locator: ConfigLocator) {
        self.locator = locator
    }

    /// Where a value is: its table (`""`, `roles.failure`, `[[rule]]`), the
    /// index of an array table, and the keys inside it.
    struct Place {
        var table: String
        var index = 0
        var keys: [String] = []

        func appending(_ key: String) -> Place {
            var place = self
            place.keys.append(key)
            return place
        }

        var name: String {
            let table = self.table == "[[rule]]" ? "rule \(index + 1)" : self.table
            return ([table].filter { !$0.isEmpty } + keys).joined(separator: ".")
        }
    }

    mutating func problem(_ place: Place, _ message: String) {
        let position = locator.position(table: place.table, index: place.index, keys: place.keys)
        problems.append(.init(line: position.line, column: position.column, message: "\(place.name): \(message)"))
    }

    static let topKeys: Set<String> = ["max_visible", "limits", "roles", "pause", "exec", "modes", "rule", "overlay"]

    mutating func read(_ root: ConfigValue) -> ToastdConfig {
        var config = ToastdConfig()
        let top = Place(table: "")
        guard case .object(let members) = root.json else { return config }
        for key in members.keys.sorted() where !Self.topKeys.contains(key) {
            problem(top.appending(key), "unknown key; expected one of \(Self.topKeys.sorted().joined(separator: ", "))")
        }
        if let table = self.table(members["max_visible"], Place(table: "max_visible"), allowed: ["top", "center", "bottom"]) {
            for alignment in ToastAlignment.allCases {
                let place = Place(table: "max_visible", keys: [alignment.rawValue])
                if let value = integer(table[alignment.rawValue], place, in: ConfigurationLimits.maxVisible) {
                    config.maxVisible[alignment] = value
                }
            }
        }
        if let table = self.table(
            members["limits"], Place(table: "limits"), allowed: ["max_toasts", "max_toasts_per_source", "history_size"])
        {
            config.maxToasts = integer(table["max_toasts"], Place(table: "limits", keys: ["max_toasts"]), in: ConfigurationLimits.maxToasts)
            config.maxToastsPerSource = integer(
                table["max_toasts_per_source"], Place(table: "limits", keys: ["max_toasts_per_source"]), in: ConfigurationLimits.maxToasts)
            config.historySize = integer(
                table["history_size"], Place(table: "limits", keys: ["history_size"]), in: ConfigurationLimits.historySize)
        }
        if let table = self.table(members["pause"], Place(table: "pause"), allowed: ["default_level", "inhibit_level"]) {
            if let level = integer(table["default_level"], Place(table: "pause", keys: ["default_level"]), in: ConfigurationLimits.pauseLevel) {
                config.pauseLevels.defaultLevel = level
            }
            if let level = integer(table["inhibit_level"], Place(table: "pause", keys: ["inhibit_level"]), in: ConfigurationLimits.pauseLevel) {
                config.pauseLevels.inhibitLevel = level
            }
        }
        config.overlay = overlayStyle(members["overlay"])
        if let table = self.table(members["exec"], Place(table: "exec"), allowed: ["timeout", "max_running"]) {
            if let seconds = number(table["timeout"], Place(table: "exec", keys: ["timeout"]), in: ConfigurationLimits.execTimeoutSeconds) {
                config.execTimeout = .milliseconds(Int64(seconds * 1_000))
            }
            if let count = integer(table["max_running"], Place(table: "exec", keys: ["max_running"]), in: ConfigurationLimits.execMaxRunning) {
                config.execMaxRunning = count
            }
        }
        readRoles(members["roles"], into: &config)
        if let raw = members["modes"] {
            config.modes = names(raw, Place(table: "", keys: ["modes"]))
        }
        readRules(members["rule"], into: &config)
        return config
    }

    // MARK: - Roles

    private mutating func readRoles(_ value: JSONValue?, into config: inout ToastdConfig) {
        let names = ToastRole.allCases.map(\.rawValue)
        guard let roles = table(value, Place(table: "roles"), allowed: Set(names)) else { return }
        for role in ToastRole.allCases {
            let place = Place(table: "roles.\(role.rawValue)")
            guard let table = table(roles[role.rawValue], place, allowed: ["duration", "alignment", "dismissible", "level"])
            else { continue }
            var defaults = RoleDefaults()
            defaults.duration = duration(table["duration"], place.appending("duration"))
            defaults.alignment = enumeration(table["alignment"], place.appending("alignment"), ToastAlignment.self)
            defaults.dismissible = bool(table["dismissible"], place.appending("dismissible"))
            if defaults != RoleDefaults() { config.rules.roles[role] = defaults }
            if let level = integer(table["level"], place.appending("level"), in: ConfigurationLimits.level) {
                config.pauseLevels.roles[role] = level
            }
        }
    }

    // MARK: - Rules

    static let matchKeys: Set<String> = [
        "source", "app", "role", "scene", "alignment", "title", "message", "title_regex", "message_regex", "mode",
        "category", "desktop_entry", "icon", "urgency", "actionable",
    ]
    static let setKeys: Set<String> = ["role", "duration", "alignment", "scene", "icon", "dismissible", "level"]

    private mutating func readRules(_ value: JSONValue?, into config: inout ToastdConfig) {
        guard let value else { return }
        guard case .array(let tables) = value else {
            problem(Place(table: "", keys: ["rule"]), "must be an array of tables: write each rule as [[rule]]")
            return
        }
        if tables.count > RuleBudget.maxRules {
            problem(Place(table: "[[rule]]", index: RuleBudget.maxRules), "a file holds at most \(RuleBudget.maxRules) rules, not \(tables.count)")
            return
        }
        var steps = 0
        for (index, raw) in tables.enumerated() {
            let place = Place(table: "[[rule]]", index: index)
            guard let table = table(raw, place, allowed: ["name", "match", "set", "drop", "exec"]) else { continue }
            var rule = ToastRule()
            if let name = string(table["name"], place.appending("name")) {
                if !ToastRule.isName(name) {
                    problem(place.appending("name"), "a rule's name is 1 to 64 letters, digits, '-' or '_' (got \"\(name)\")")
                } else if config.rules.rules.contains(where: { $0.name == name }) {
                    problem(place.appending("name"), "another rule is named \"\(name)\"")
                } else {
                    rule.name = name
                }
            }
            let position = locator.position(table: "[[rule]]", index: index, keys: [])
            rule.origin = "rule \(index + 1) (line \(position.line))"
            if let match = self.table(table["match"], place.appending("match"), allowed: Self.matchKeys) {
                rule.match = readMatch(match, place.appending("match"), modes: config.modes)
            }
            if let set = self.table(table["set"], place.appending("set"), allowed: Self.setKeys) {
                rule.set = readChanges(set, place.appending("set"))
            }
            rule.drop = bool(table["drop"], place.appending("drop")) ?? false
            if let exec = table["exec"] {
                rule.exec = command(exec, place.appending("exec"))
            }
            if table["match"] == nil {
                problem(place, "a rule needs a `match` table (use `match = {}` to match every toast)")
            }
            if table["set"] == nil, table["drop"] == nil, table["exec"] == nil {
                problem(place, "the rule does nothing: give it `set`, `drop = true` or `exec`")
            }
            steps += RuleBudget.steps(of: rule.match)
            if steps > RuleBudget.maxSteps {
                problem(
                    place,
                    "the rules up to this one could take \(steps) steps to match one toast, over the budget of \(RuleBudget.maxSteps); "
                        + "use fewer or simpler patterns (a glob, or a regular expression of fewer states) on the message"
                )
                return
            }
            config.rules.rules.append(rule)
        }
    }

    private mutating func readMatch(_ table: JSONObject, _ place: Place, modes: [String]?) -> ToastRule.Match {
        var match = ToastRule.Match()
        if table["source"] != nil && table["app"] != nil {
            problem(place.appending("app"), "`app` and `source` are the same key; give one")
        }
        let sourceKey = table["app"] != nil ? "app" : "source"
        match.source = glob(table[sourceKey], place.appending(sourceKey))
        match.role = enumeration(table["role"], place.appending("role"), ToastRole.self)
        match.alignment = enumeration(table["alignment"], place.appending("alignment"), ToastAlignment.self)
        match.scene = string(table["scene"], place.appending("scene"))
        for (key, regexKey) in [("title", "title_regex"), ("message", "message_regex")] {
            if table[key] != nil && table[regexKey] != nil {
                problem(place.appending(regexKey), "give `\(key)` (a glob) or `\(regexKey)`, not both")
            }
            let pattern = glob(table[key], place.appending(key)) ?? regex(table[regexKey], place.appending(regexKey))
            if key == "title" { match.title = pattern } else { match.message = pattern }
        }
        match.category = glob(table["category"], place.appending("category"))
        match.desktopEntry = glob(table["desktop_entry"], place.appending("desktop_entry"))
        match.icon = glob(table["icon"], place.appending("icon"))
        match.urgency = enumeration(table["urgency"], place.appending("urgency"), ToastUrgency.self)
        match.actionable = bool(table["actionable"], place.appending("actionable"))
        if let mode = string(table["mode"], place.appending("mode")) {
            if let modes, !modes.contains(mode) {
                problem(place.appending("mode"), "unknown mode '\(mode)'; `modes` declares: \(modes.joined(separator: ", "))")
            }
            match.mode = mode
        }
        return match
    }

    private mutating func readChanges(_ table: JSONObject, _ place: Place) -> ToastRule.Changes {
        var changes = ToastRule.Changes()
        changes.role = enumeration(table["role"], place.appending("role"), ToastRole.self)
        changes.duration = duration(table["duration"], place.appending("duration"))
        changes.alignment = enumeration(table["alignment"], place.appending("alignment"), ToastAlignment.self)
        // What a rule sets passes the checks an add's own fields get: a bad
        // value is this file's error, not every matching client's.
        changes.scene = string(table["scene"], place.appending("scene"))
        if let scene = changes.scene, let why = Toast.problem(scene: scene) { problem(place.appending("scene"), why) }
        changes.icon = string(table["icon"], place.appending("icon"))
        if let icon = changes.icon, let why = Toast.problem(icon: icon) { problem(place.appending("icon"), why) }
        changes.dismissible = bool(table["dismissible"], place.appending("dismissible"))
        changes.level = integer(table["level"], place.appending("level"), in: ConfigurationLimits.level)
        return changes
    }

    // MARK: - Values

    mutating func table(_ value: JSONValue?, _ place: Place, allowed: Set<String>) -> JSONObject? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            problem(place, "must be a table, not \(value.typeName)")
            return nil
        }
        for key in members.keys.sorted() where !allowed.contains(key) {
            problem(place.appending(key), "unknown key; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
        return members
    }

    mutating func integer(_ value: JSONValue?, _ place: Place, in range: ClosedRange<Int>) -> Int? {
        guard let value else { return nil }
        guard case .int(let int) = value, range.contains(Int(clamping: int)) else {
            problem(place, "must be an integer from \(range.lowerBound) to \(range.upperBound), not \(value.serialized)")
            return nil
        }
        return Int(int)
    }

    mutating func number(_ value: JSONValue?, _ place: Place, in range: ClosedRange<Double>) -> Double? {
        guard let value else { return nil }
        guard let number = value.doubleValue, range.contains(number) else {
            problem(place, "must be a number from \(range.lowerBound) to \(range.upperBound), not \(value.serialized)")
            return nil
        }
        return number
    }

    mutating func bool(_ value: JSONValue?, _ place: Place) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let bool) = value else {
            problem(place, "must be true or false, not \(value.serialized)")
            return nil
        }
        return bool
    }

    mutating func string(_ value: JSONValue?, _ place: Place) -> String? {
        guard let value else { return nil }
        guard case .string(let string) = value else {
            problem(place, "must be a string, not \(value.serialized)")
            return nil
        }
        return string
    }

    mutating func enumeration<T: RawRepresentable & CaseIterable>(_ value: JSONValue?, _ place: Place, _: T.Type)
        -> T? where T.RawValue == String
    {
        guard let name = string(value, place) else { return nil }
        guard let result = T(rawValue: name) else {
            problem(place, "unknown value '\(name)'; expected one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return result
    }

    private mutating func duration(_ value: JSONValue?, _ place: Place) -> ToastDuration? {
        guard let value else { return nil }
        do {
            return try WireDecoder.decodeDuration(value, field: place.name)
        } catch {
            problem(place, error.message)
            return nil
        }
    }

    private mutating func glob(_ value: JSONValue?, _ place: Place) -> TextPattern? {
        guard let pattern = string(value, place) else { return nil }
        guard pattern.utf8.count <= RuleBudget.maxGlobBytes else {
            problem(place, "a glob is at most \(RuleBudget.maxGlobBytes) bytes")
            return nil
        }
        return .glob(Glob(pattern))
    }

    private mutating func regex(_ value: JSONValue?, _ place: Place) -> TextPattern? {
        guard let pattern = string(value, place) else { return nil }
        do {
            return .regex(try BoundedRegex(pattern))
        } catch {
            problem(place, "not a usable regular expression: \(error.message)")
            return nil
        }
    }

    private mutating func names(_ value: JSONValue, _ place: Place) -> [String]? {
        guard case .array(let items) = value else {
            problem(place, "must be an array of names")
            return nil
        }
        var names: [String] = []
        for item in items {
            guard case .string(let name) = item, !name.isEmpty, name.utf8.count <= ToastLimits.sceneBytes,
                !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                problem(place, "a mode name is a string of 1 to \(ToastLimits.sceneBytes) bytes, not \(item.serialized)")
                continue
            }
            names.append(name)
        }
        return names
    }

    private mutating func command(_ value: JSONValue, _ place: Place) -> [String]? {
        guard case .array(let items) = value, !items.isEmpty else {
            problem(place, "must be a command as an array of strings, e.g. [\"paplay\", \"/path/sound.oga\"]")
            return nil
        }
        var argv: [String] = []
        for item in items {
            guard case .string(let argument) = item, !argument.contains("\0") else {
                problem(place, "every element of a command is a string, not \(item.serialized)")
                return nil
            }
            argv.append(argument)
        }
        if argv[0].isEmpty { problem(place, "the command's name is empty") }
        return argv
    }
}
