// SPDX-License-Identifier: Apache-2.0
import CTomlReader
import ToastCore

/// A configuration file's text read as TOML 1.0 into the wire's JSON
/// values, so that durations and names are then read by ToastCore's own
/// decoders (`ConfigReader`). toml++ (Debian libtomlplusplus-dev) parses;
/// `CTomlReader` hands its tree over as one buffer, read here.
///
/// toastd read TOML through TOMLKit until issue #44. TOMLKit wraps the same
/// toml++, but imports Foundation for its dates, and with Foundation came
/// its internationalization library and ICU's data into toastd and
/// toast-overlay: 37 MB of toastd's 63 MB binary (docs/BENCHMARKS.md,
/// "At rest").
enum ConfigDocument {
    /// A syntax error, where toml++ found it (1-based).
    struct SyntaxError: Error, Sendable {
        var line: Int
        var column: Int
        var message: String
    }

    static func parse(_ text: String) -> Result<JSONValue, SyntaxError> {
        var text = text
        var result = toastd_toml()
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { toastd_toml_parse($0.baseAddress, $0.count, &result) }
        }
        defer { toastd_toml_free(&result) }
        guard let tree = result.tree else {
            let message = result.error.map { String(cString: $0) } ?? "out of memory"
            return .failure(SyntaxError(line: max(1, Int(result.line)), column: max(1, Int(result.column)), message: message))
        }
        var reader = TreeReader(bytes: UnsafeRawBufferPointer(start: tree, count: result.tree_length))
        guard let root = reader.value(), reader.atEnd else {
            return .failure(SyntaxError(line: 1, column: 1, message: "the TOML reader handed over a damaged tree"))
        }
        return .success(root)
    }

    /// Reads the buffer `toml_reader.h` describes; nil where it does not add up.
    private struct TreeReader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var atEnd: Bool { position == bytes.count }

        private mutating func take<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard bytes.count - position >= MemoryLayout<T>.size else { return nil }
            defer { position += MemoryLayout<T>.size }
            return bytes.loadUnaligned(fromByteOffset: position, as: T.self)
        }

        private mutating func text() -> String? {
            guard let length = take(UInt32.self).map(Int.init), bytes.count - position >= length else { return nil }
            defer { position += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)]), as: UTF8.self)
        }

        mutating func value() -> JSONValue? {
            switch take(UInt8.self).map(Unicode.Scalar.init) {
            case "T":
                guard let count = take(UInt32.self) else { return nil }
                var members: [(key: String, value: JSONValue)] = []
                for _ in 0..<count {
                    guard let key = text(), let member = value() else { return nil }
                    members.append((key, member))
                }
                return .object(JSONObject(members))
            case "A":
                guard let count = take(UInt32.self) else { return nil }
                var items: [JSONValue] = []
                for _ in 0..<count {
                    guard let item = value() else { return nil }
                    items.append(item)
                }
                return .array(items)
            case "S", "d": return text().map(JSONValue.string)
            case "I": return take(Int64.self).map(JSONValue.int)
            case "D": return take(UInt64.self).map { .double(Double(bitPattern: $0)) }
            case "B": return take(UInt8.self).map { .bool($0 != 0) }
            default: return nil
            }
        }
    }
}
