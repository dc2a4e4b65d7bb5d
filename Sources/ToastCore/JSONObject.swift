/// The members of a JSON object: a small array kept sorted by key, with no
/// two keys equal.
///
/// A `Dictionary` per object was the largest cost of reading JSON: every
/// member hashed its key with a seeded SipHash to insert it, every lookup
/// hashed it again, and every object allocated a hash table sized for
/// growth (docs/BENCHMARKS.md, "Fuzzing", "Objects without hashing"). A
/// wire object has a dozen members at most, so binary search over a
/// sorted array finds a key in a few comparisons of short strings, two
/// objects compare member by member, and writing one needs no sort.
///
/// Keys are ordered and compared as `String` orders and compares them
/// (canonical equivalence, as a `Dictionary<String, _>` did), so lookups
/// and duplicates mean what they meant. That order is the UTF-8 byte order
/// for every key in NFC, which every ASCII key is; `JSONValue.write` falls
/// back to sorting by bytes for an object whose keys are not.
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
            given[left].key < given[right].key || (given[left].key == given[right].key && left < right)
        }
        for index in order {
            if let last = members.last, last.key == given[index].key {
                members[members.count - 1].value = given[index].value
            } else {
                members.append(given[index])
            }
        }
    }

    /// Whether every key is before the next (so none repeats).
    static func ascend(_ members: [Element]) -> Bool {
        var previous: String? = nil
        for member in members {
            if let previous, !(previous < member.key) { return false }
            previous = member.key
        }
        return true
    }

    public init(_ dictionary: [String: JSONValue]) {
        members = dictionary.map { $0 }
        members.sort { $0.key < $1.key }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order, without copying them out.
    public var keys: LazyMapSequence<[Element], String> { members.lazy.map(\.key) }
    public var values: LazyMapSequence<[Element], JSONValue> { members.lazy.map(\.value) }

    /// Where `key` is, or where it would go. A short object is searched
    /// from the front (equal short strings compare as two words), a long
    /// one by halves.
    func position(of key: String) -> (index: Int, found: Bool) {
        if members.count <= 8 {
            for index in members.indices {
                let other = members[index].key
                if other == key { return (index, true) }
                if key < other { return (index, false) }
            }
            return (members.count, false)
        }
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            if members[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return (low, low < members.count && members[low].key == key)
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
        self.init(elements.lazy.map { (key: $0.0, value: $0.1) })
    }
}

extension JSONObject: Hashable {
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) where left.key != right.key || left.value != right.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for (key, value) in members {
            hasher.combine(key)
            hasher.combine(value)
        }
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
