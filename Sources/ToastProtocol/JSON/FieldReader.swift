// SPDX-License-Identifier: Apache-2.0
/// Reads the members of one JSON object, with errors that name the field by
/// its path in the request, and rejects members it was not asked about.
struct FieldReader {
    let members: JSONObject
    /// Prefix of every field path, e.g. "toast." or "".
    let path: String

    /// The request itself must be an object (`invalid_request`); a member
    /// that must be one and is not has the wrong type (`invalid_field`).
    init(_ value: JSONValue, path: String) throws(ToastError) {
        guard case .object(let members) = value else {
            if path.isEmpty {
                throw ToastError(.invalidRequest, "the request must be a JSON object, not \(value.typeName)")
            }
            let name = String(path.dropLast())
            throw ToastError.invalid(name, "must be a JSON object, not \(value.typeName)")
        }
        self.members = members
        self.path = path
    }

    func has(_ key: String) -> Bool { members[key] != nil }

    /// Whether a member is present and `null`: only `update` gives that a
    /// meaning (a reset); everywhere else `null` is a value of the wrong type.
    func isNull(_ key: String) -> Bool { members[key] == .null }

    /// Every member must be one of `allowed`. Allocates nothing unless a
    /// member is unknown (this runs on every request).
    func rejectUnknown<Allowed: Collection<String>>(allowed: Allowed) throws(ToastError) {
        // The first unknown member in sorted order, so the error is stable.
        guard let first = members.keys.lazy.filter({ !allowed.contains($0) }).min() else { return }
        throw ToastError(
            .unknownField,
            "unknown field '\(first)'; allowed here: \(allowed.sorted().joined(separator: ", "))",
            field: path + first
        )
    }

    func string(_ key: String) throws(ToastError) -> String? {
        guard let value = members[key] else { return nil }
        return try Self.string(value, field: path + key)
    }

    // The checks of one value, by the path of its field: the members' own
    // (above and below) and the toast member table's (`Toast.decode`).

    static func string(_ value: JSONValue, field: String) throws(ToastError) -> String {
        guard let string = value.stringValue else { throw ToastError.invalid(field, "must be a string, not \(value.typeName)") }
        return string
    }

    static func bool(_ value: JSONValue, field: String) throws(ToastError) -> Bool {
        guard let bool = value.boolValue else { throw ToastError.invalid(field, "must be true or false, not \(value.typeName)") }
        return bool
    }

    static func array(_ value: JSONValue, field: String) throws(ToastError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw ToastError.invalid(field, "must be an array, not \(value.typeName)") }
        return elements
    }

    /// A pause level or a toast's level: an integer from 0 to 100.
    static func level(_ value: JSONValue, field: String) throws(ToastError) -> Int {
        guard let int = value.intValue, PauseLevels.range.contains(Int(clamping: int)) else {
            throw ToastError.invalid(field, "must be an integer from 0 to 100, not \(value.serialized.prefix(32))")
        }
        return Int(int)
    }

    func requiredString(_ key: String) throws(ToastError) -> String {
        guard let string = try string(key) else { throw missing(key) }
        return string
    }

    func bool(_ key: String) throws(ToastError) -> Bool? {
        guard let value = members[key] else { return nil }
        return try Self.bool(value, field: path + key)
    }

    /// An integer from `minimum` to 2^53-1 (the largest every JSON
    /// implementation reads exactly): ids and counts from 1, `since` from 0.
    func integer(_ key: String, from minimum: Int64 = 1) throws(ToastError) -> UInt64? {
        guard let value = members[key] else { return nil }
        guard let int = value.intValue, int >= minimum, int <= Self.maxSafeInteger else {
            throw ToastError.invalid(path + key, "must be an integer from \(minimum) to 2^53-1, not \(value.serialized.prefix(32))")
        }
        return UInt64(int)
    }

    static let maxSafeInteger: Int64 = (1 << 53) - 1

    /// A pause level or a toast's level: an integer from 0 to 100.
    func level(_ key: String) throws(ToastError) -> Int? {
        guard let value = members[key] else { return nil }
        return try Self.level(value, field: path + key)
    }

    func enumeration<T: RawRepresentable & CaseIterable>(_ key: String, _: T.Type) throws(ToastError) -> T?
    where T.RawValue == String {
        guard let raw = try string(key) else { return nil }
        return try Self.enumeration(raw, T.self, field: path + key)
    }

    static func enumeration<T: RawRepresentable & CaseIterable>(
        _ raw: String, _: T.Type, field: String
    ) throws(ToastError) -> T where T.RawValue == String {
        guard let value = T(rawValue: raw) else {
            let allowed = T.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw ToastError.invalid(field, "unknown value '\(raw)'; expected one of \(allowed)")
        }
        return value
    }

    func array(_ key: String) throws(ToastError) -> [JSONValue]? {
        guard let value = members[key] else { return nil }
        return try Self.array(value, field: path + key)
    }

    func missing(_ key: String) -> ToastError {
        ToastError(.missingField, "the field '\(key)' is required", field: path + key)
    }
}
