// SPDX-License-Identifier: Apache-2.0
/// The members of a JSON object: a small array kept sorted by key, with no
/// two keys equal.
///
/// A `Dictionary` per object was the largest cost of reading JSON: every
/// member hashed its key with a seeded SipHash to insert it, every lookup
/// hashed it again, and every object allocated a hash table sized for
/// growth (docs/BENCHMARKS.md, "Fuzzing", "Objects without hashing"). A
/// wire object has a dozen members at most, so a search over a sorted
/// array finds a key in a few comparisons of short strings, two objects
/// compare member by member, and writing one needs no sort.
///
/// Keys are ordered and compared by their UTF-8 bytes, as RFC 8259 (8.3)
/// compares member names and as the canonical form sorts them. Not by
/// `String`'s own `==` and `<`: those compare canonical equivalents ("é"
/// precomposed and "e" with a combining accent) as equal, and `<` is then
/// no order at all ("e\u{301}" is neither before nor after "é8"), which a
/// sorted array cannot live with. So those two spellings are two keys, as
/// in most JSON parsers; every key of the protocol is ASCII, where nothing
/// differs.
public struct JSONObject: Sendable {
    public typealias Element = (key: String, value: JSONValue)

    /// Sorted by key, keys unique.
    public private(set) var members: [Element]

    public init() { members = [] }

    /// Members whose keys are already sorted and unique (the parser's and
    /// the literal's work); not public, since nothing checks it.
    init(sorted members: [Element]) { self.members = members }

    /// Members in any order; a repeated key keeps its last value, as a
    /// dictionary literal did. Members already in order (most literals in
    /// this package) are taken as they are.
    public init<S: Sequence<Element>>(_ elements: S) {
        members = Array(elements)
        if Self.ascend(members) { return }
        let given = members
        members = []
        members.reserveCapacity(given.count)
        guard given.count > 16 else {
            for (key, value) in given { self[key] = value }
            return
        }
        // Many: in key order, equal keys in their given order, the last kept.
        let order = given.indices.sorted { left, right in
            let order = Self.compare(given[left].key, given[right].key)
            return order < 0 || (order == 0 && left < right)
        }
        for index in order {
            if let last = members.last, Self.compare(last.key, given[index].key) == 0 {
                members[members.count - 1].value = given[index].value
            } else {
                members.append(given[index])
            }
        }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order, without copying them out.
    public var keys: LazyMapSequence<[Element], String> { members.lazy.map(\.key) }

    /// Where `key` is, or where it would go. A short object is searched
    /// from the front, a long one by halves.
    func position(of key: String) -> (index: Int, found: Bool) {
        if members.count <= 8 {
            for index in members.indices {
                let order = Self.compare(members[index].key, key)
                if order == 0 { return (index, true) }
                if order > 0 { return (index, false) }
            }
            return (members.count, false)
        }
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            if Self.compare(members[middle].key, key) < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, low < members.count && Self.compare(members[low].key, key) == 0)
    }

    /// The order of two keys' UTF-8 bytes: negative, zero or positive.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        // Not `withUTF8`, which needs a mutable copy of each string (their
        // retains and releases were 6% of the fuzz target's time); a native
        // string's UTF-8 is contiguous as it is.
        let order = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compare(left, right) }
        }
        if let order = order ?? nil { return order }
        return Array(lhs.utf8).withUnsafeBufferPointer { left in
            Array(rhs.utf8).withUnsafeBufferPointer { right in compare(left, right) }
        }
    }

    /// Eight bytes at a time, read big-endian so that a word's order is its
    /// bytes' order: keys are short, and a call to `memcmp` per comparison
    /// cost three times the rest of the comparison (perf).
    @inline(__always)
    static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let common = Swift.min(left.count, right.count)
        var offset = 0
        if common >= 8, let l = left.baseAddress, let r = right.baseAddress {
            while offset + 8 <= common {
                let a = UInt64(bigEndian: UnsafeRawPointer(l + offset).loadUnaligned(as: UInt64.self))
                let b = UInt64(bigEndian: UnsafeRawPointer(r + offset).loadUnaligned(as: UInt64.self))
                if a != b { return a < b ? -1 : 1 }
                offset += 8
            }
        }
        while offset < common {
            let a = left[offset]
            let b = right[offset]
            if a != b { return Int(a) - Int(b) }
            offset += 1
        }
        return left.count - right.count
    }

    /// Whether every key is before the next (so none repeats).
    static func ascend(_ members: [Element]) -> Bool {
        var previous: String? = nil
        for member in members {
            if let previous, compare(previous, member.key) >= 0 { return false }
            previous = member.key
        }
        return true
    }

    public subscript(key: String) -> JSONValue? {
        get {
            // Not `found ? value : nil`: JSONValue is ExpressibleByNilLiteral,
            // so that `nil` would be `.null`, a value.
            let (index, found) = position(of: key)
            guard found else { return .none }
            return members[index].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets `key`'s value and returns the value it replaced, if any.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        let (index, found) = position(of: key)
        if found {
            let old = members[index].value
            members[index].value = value
            return old
        }
        members.insert((key, value), at: index)
        return nil
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        let (index, found) = position(of: key)
        guard found else { return .none }
        return members.remove(at: index).value
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> IndexingIterator<[Element]> { members.makeIterator() }
    public var underestimatedCount: Int { members.count }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(literal: elements)
    }

    /// A literal's members: as they are when in order (most literals in
    /// this package), else as `init(_:)` takes them.
    init(literal elements: [(String, JSONValue)]) {
        var members: [Element] = []
        members.reserveCapacity(elements.count)
        for (key, value) in elements { members.append((key, value)) }
        self.init(members)
    }
}

extension JSONObject: Hashable {
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members)
        where compare(left.key, right.key) != 0 || left.value != right.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for (key, value) in members {
            Self.hashBytes(of: key, into: &hasher)
            hasher.combine(value)
        }
    }

    /// A key's hash, from its bytes (as keys are compared).
    static func hashBytes(of key: String, into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(key.utf8.count)
    }
}

extension JSONObject: CustomStringConvertible {
    public var description: String { JSONValue.object(self).serialized }
}

extension JSONObject {
    /// `other`'s members added to these; for a key in both, `combine` picks
    /// the value.
    public func merging(_ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) -> JSONValue) -> JSONObject {
        var result = self
        for (key, value) in other {
            result[key] = result[key].map { combine($0, value) } ?? value
        }
        return result
    }
}
