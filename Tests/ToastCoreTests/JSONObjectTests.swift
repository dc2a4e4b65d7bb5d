import PropertyBased
import Testing

@testable import ToastCore

/// `JSONObject` replaced a `[String: JSONValue]`: these hold it to what the
/// dictionary did, key by key, with a dictionary as the model.
@Suite("JSON objects")
struct JSONObjectTests {
    /// Keys that test the order and the equality: ASCII in and out of
    /// order, a prefix of another, non-ASCII, and "é" both precomposed and
    /// as "e" with a combining accent (equal as Strings, different bytes).
    static let keys = ["a", "ab", "b", "Z", "op", "toast", "é", "e\u{301}", "中", "🍞", "", "\"", "k\u{0}"]

    /// A document's members in the given order, as the parser sees them:
    /// the first repeated key (by String equality) with its byte offset is
    /// the error, else every key reads back its value, the keys ascend, and
    /// the serialization sorts them by their UTF-8 bytes.
    @Test func objectsReadAsADictionaryHoldsThem() async {
        // Up to 40 members, so that the search for repeats goes past 16
        // (where it moves from a scan to a set).
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...40)) { seeds in
            let members = seeds.map { seed in
                (key: Self.keys[seed % Self.keys.count] + (seed % 3 == 0 ? "" : String(seed % 29)),
                 value: JSONValue.int(Int64(seed)))
            }
            var text: [UInt8] = Array("{".utf8)
            var model: [String: JSONValue] = [:]
            var firstRepeat: (key: String, offset: Int)?
            for (index, member) in members.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                if firstRepeat == nil, model[member.key] != nil { firstRepeat = (member.key, text.count) }
                model[member.key] = model[member.key] ?? member.value
                text += Array(JSONValue.string(member.key).serialized.utf8) + [UInt8(ascii: ":")]
                text += Array(member.value.serialized.utf8)
            }
            text.append(UInt8(ascii: "}"))

            let parsed = Result { () throws(JSONParseFailure) in try JSONValue.parse(text) }
            if let firstRepeat {
                #expect(parsed == .failure(.invalidJSON("duplicate member \"\(firstRepeat.key)\" at byte \(firstRepeat.offset)")))
                return
            }
            guard case .success(.object(let object)) = parsed else {
                Issue.record("\(String(decoding: text, as: UTF8.self)) did not parse to an object: \(parsed)")
                return
            }
            #expect(object.count == model.count)
            for (key, value) in model { #expect(object[key] == value) }
            #expect(Array(object.keys) == model.keys.sorted())
            #expect(object["absent"] == nil)
            #expect(JSONValue.object(object).serialized == Self.canonical(model))
            // Any order of the same members is the same value, with the same hash.
            let reversed = JSONObject(members.reversed())
            #expect(reversed == object)
            #expect(reversed.hashValue == object.hashValue)
        }
    }

    /// Sets, replacements and removals in any order leave what a
    /// dictionary would hold, sorted; `.null` is a value, not an absence.
    @Test func changesLeaveWhatADictionaryWould() async {
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...60)) { seeds in
            var object = JSONObject()
            var model: [String: JSONValue] = [:]
            for seed in seeds {
                let key = Self.keys[seed % Self.keys.count] + String(seed % 5)
                let value: JSONValue = seed % 4 == 0 ? .null : .int(Int64(seed))
                switch seed % 7 {
                case 0, 1:
                    #expect(object.removeValue(forKey: key) == model.removeValue(forKey: key))
                case 2:
                    object[key] = nil
                    model[key] = nil
                default:
                    #expect(object.updateValue(value, forKey: key) == model.updateValue(value, forKey: key))
                }
                #expect(object[key] == model[key])
            }
            #expect(object == JSONObject(model))
            #expect(Array(object.keys) == model.keys.sorted())
            #expect(object.count == model.count)
        }
    }

    /// Members given in any order, keys repeated or not, few (inserted
    /// one by one) or many (sorted at once): each key keeps its last value.
    @Test func membersInAnyOrderKeepTheLastOfEachKey() async {
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...50)) { seeds in
            let members = seeds.map { seed in
                (key: Self.keys[seed % Self.keys.count] + String(seed % 3), value: JSONValue.int(Int64(seed)))
            }
            let model = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            let object = JSONObject(members)
            #expect(object == JSONObject(model))
            #expect(Array(object.keys) == model.keys.sorted())
            // In order already, they are taken as they are.
            #expect(JSONObject(object.members) == object)
        }
    }

    /// A stored `null` reads back as a present `null`; a missing key as
    /// nothing (the first version returned `.null` for both).
    @Test func aNullMemberIsPresent() throws {
        let value = try JSONValue.parse(#"{"resident":null,"title":"t"}"#)
        #expect(value["resident"] == .some(.null))
        #expect(value["message"] == .none)
        #expect(value["title"] == "t")
    }

    /// Keys that are not in NFC sort one way as Strings and another as
    /// bytes; the serialization still sorts by bytes, as the spec says.
    @Test func serializationSortsKeysByTheirBytes() {
        // "A" + a combining ring is not NFC: as a String it is "Å" (U+00C5),
        // after "C"; as bytes it starts with 0x41, before "B".
        let object: JSONObject = ["B": 1, "A\u{30A}": 2, "C": 3]
        #expect(JSONValue.object(object).serialized == #"{"A\#u{30A}":2,"B":1,"C":3}"#)
        #expect(Array(object.keys) == ["B", "C", "A\u{30A}"])
    }

    /// A hostile object of many members out of order costs a sort, not a
    /// scan per member: 200,000 in descending order parse, and a repeat of
    /// the first key at the very end is still found, at its byte.
    @Test func manyMembersOutOfOrder() throws {
        let count = 200_000
        var text = "{" + (0..<count).map { #""k\#(count - $0)":\#($0)"# }.joined(separator: ",")
        let object = try JSONValue.parse(text + "}")
        guard case .object(let members) = object else { Issue.record("not an object"); return }
        #expect(members.count == count)
        #expect(members["k1"] == .int(Int64(count - 1)))
        #expect(members["k\(count)"] == 0)
        let offset = text.utf8.count + 1
        text += #","k\#(count)":0}"#
        #expect(throws: JSONParseFailure.invalidJSON("duplicate member \"k\(count)\" at byte \(offset)")) {
            try JSONValue.parse(text)
        }
    }

    /// The canonical serialization of the model: keys in UTF-8 byte order.
    static func canonical(_ model: [String: JSONValue]) -> String {
        let keys = model.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let members = keys.map { JSONValue.string($0).serialized + ":" + model[$0]!.serialized }
        return "{" + members.joined(separator: ",") + "}"
    }
}
