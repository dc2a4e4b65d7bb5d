// SPDX-License-Identifier: Apache-2.0
import PropertyBased
import Testing

@testable import ToastProtocol

/// `JSONObject` replaced a `[String: JSONValue]`: these hold it to a
/// dictionary keyed by each key's UTF-8 bytes, key by key.
@Suite("JSON objects")
struct JSONObjectTests {
    /// Keys that test the order and the equality: ASCII in and out of
    /// order, a prefix of another, non-ASCII, and "é" both precomposed and
    /// as "e" with a combining accent (equal as Strings, two keys here).
    static let keys = ["a", "ab", "b", "Z", "op", "toast", "é", "e\u{301}", "中", "🍞", "", "\"", "k\u{0}"]

    /// A document's members in the given order, as the parser sees them:
    /// the first repeated key (by its bytes) with its byte offset is the
    /// error, else every key reads back its value, the keys ascend by their
    /// bytes, and so does the serialization.
    @Test func objectsReadAsADictionaryHoldsThem() async {
        // Up to 40 members, so that the search for repeats goes past 16
        // (where it moves from a scan to a set).
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...40)) { seeds in
            let members = seeds.map { seed in
                (key: Self.keys[seed % Self.keys.count] + (seed % 3 == 0 ? "" : String(seed % 29)),
                 value: JSONValue.int(Int64(seed)))
            }
            var text: [UInt8] = Array("{".utf8)
            var model: [[UInt8]: JSONValue] = [:]
            var firstRepeat: (key: String, offset: Int)?
            for (index, member) in members.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                let bytes = Array(member.key.utf8)
                if firstRepeat == nil, model[bytes] != nil { firstRepeat = (member.key, text.count) }
                model[bytes] = model[bytes] ?? member.value
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
            for (key, value) in model { #expect(object[String(decoding: key, as: UTF8.self)] == value) }
            #expect(object.keys.map { Array($0.utf8) } == Self.sorted(model.keys))
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
            var model: [[UInt8]: JSONValue] = [:]
            for seed in seeds {
                let key = Self.keys[seed % Self.keys.count] + String(seed % 5)
                let bytes = Array(key.utf8)
                let value: JSONValue = seed % 4 == 0 ? .null : .int(Int64(seed))
                switch seed % 7 {
                case 0, 1:
                    #expect(object.removeValue(forKey: key) == model.removeValue(forKey: bytes))
                case 2:
                    object[key] = nil
                    model[bytes] = nil
                default:
                    #expect(object.updateValue(value, forKey: key) == model.updateValue(value, forKey: bytes))
                }
                #expect(object[key] == model[bytes])
            }
            #expect(object == JSONObject(model.map { (key: String(decoding: $0.key, as: UTF8.self), value: $0.value) }))
            #expect(object.keys.map { Array($0.utf8) } == Self.sorted(model.keys))
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
            let model = Dictionary(members.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { _, last in last })
            let object = JSONObject(members)
            #expect(object.count == model.count)
            for (key, value) in model { #expect(object[String(decoding: key, as: UTF8.self)] == value) }
            #expect(object.keys.map { Array($0.utf8) } == Self.sorted(model.keys))
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

    /// Keys are their bytes: "é" precomposed and "e" with a combining
    /// accent are two members, not a repeat, and they sort by their bytes
    /// (`String`'s `<` has "e\u{301}" neither before nor after "é8", which
    /// broke the first version's sorted array).
    @Test func keysAreTheirBytes() throws {
        let value = try JSONValue.parse("{\"e\u{301}\":1,\"é8\":2,\"é\":3,\"B\":4,\"A\u{30A}\":5}")
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys.map { Array($0.utf8) } == [[0x41, 0xCC, 0x8A], [0x42], [0x65, 0xCC, 0x81], [0xC3, 0xA9], [0xC3, 0xA9, 0x38]])
        #expect(object["e\u{301}"] == 1)
        #expect(object["é8"] == 2)
        #expect(object["é"] == 3)
        #expect(object["e\u{301}8"] == nil)
        #expect(JSONObject(object.members.reversed()) == object)
        #expect(value.serialized == "{\"A\u{30A}\":5,\"B\":4,\"e\u{301}\":1,\"é\":3,\"é8\":2}")
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

    /// The model's keys in byte order.
    static func sorted(_ keys: Dictionary<[UInt8], JSONValue>.Keys) -> [[UInt8]] {
        keys.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The canonical serialization of the model: keys in UTF-8 byte order.
    static func canonical(_ model: [[UInt8]: JSONValue]) -> String {
        let members = sorted(model.keys).map {
            JSONValue.string(String(decoding: $0, as: UTF8.self)).serialized + ":" + model[$0]!.serialized
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
