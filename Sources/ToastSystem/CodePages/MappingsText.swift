// SPDX-License-Identifier: Apache-2.0

/// The mappings of a `/proc/PID/maps` or `/proc/PID/smaps` text, read as
/// bytes, line by line: splitting the text into Strings took three quarters
/// of `CodePages`' time, about 4 ms of a core at every start
/// (docs/BENCHMARKS.md, "At rest"). The text is the kernel's, but a
/// malformed line is skipped rather than trusted. toast-bench reads the
/// processes it measures with it too (`ChildProcess.mappings`).
public enum MappingsText {
    /// One mapping: its header, and the values (in kB) of the fields asked
    /// for, in the order asked, 0 where a field is missing or not a number.
    public struct Entry: Equatable, Sendable {
        public var start: UInt
        public var end: UInt
        /// `r-xp` and the like.
        public var permissions: String
        /// Where in its file the mapping starts.
        public var offset: UInt
        /// The file, `[heap]` and the like, or empty.
        public var path: String
        public var values: [Int]

        public init(start: UInt, end: UInt, permissions: String, offset: UInt, path: String, values: [Int]) {
            (self.start, self.end, self.permissions, self.offset, self.path, self.values) = (start, end, permissions, offset, path, values)
        }

        /// Private, not writable, and backed by a file (a path, not `[vdso]`
        /// or an anonymous region).
        var isPrivateReadOnlyFile: Bool {
            let flags = Array(permissions.utf8)
            return flags.count == 4 && flags[1] == UInt8(ascii: "-") && flags[3] == UInt8(ascii: "p")
                && path.utf8.first == UInt8(ascii: "/")
        }
    }

    /// Every mapping of `text`, with the values of `fields` (each given with
    /// its colon: `"Rss:"`).
    public static func entries(_ text: [UInt8], fields names: [StaticString]) -> [Entry] {
        var found: [Entry] = []
        text.withUnsafeBufferPointer { text in
            var lineStart = 0
            while lineStart < text.count {
                var lineEnd = lineStart
                while lineEnd < text.count, text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                let line = UnsafeBufferPointer(rebasing: text[lineStart..<lineEnd])
                lineStart = lineEnd + 1
                if var entry = header(line) {
                    entry.values = Array(repeating: 0, count: names.count)
                    found.append(entry)
                } else if !found.isEmpty {
                    for (index, name) in names.enumerated() {
                        guard let value = field(line, name) else { continue }
                        found[found.count - 1].values[index] = value
                        break
                    }
                }
            }
        }
        return found
    }

    /// A mapping's header, `start-end perms offset dev inode [path]`; nil
    /// for any other line (a field's line starts with its name and a colon,
    /// never with an address).
    private static func header(_ line: UnsafeBufferPointer<UInt8>) -> Entry? {
        var fields = Fields(line)
        guard let range = fields.next(), let permissions = fields.next(), permissions.count == 4,
            let offset = fields.next().flatMap({ hexadecimal(UnsafeBufferPointer(rebasing: $0)) }),
            fields.next() != nil, fields.next() != nil,
            range.last != UInt8(ascii: ":"), let dash = range.firstIndex(of: UInt8(ascii: "-")),
            let start = hexadecimal(UnsafeBufferPointer(rebasing: range[..<dash])),
            let end = hexadecimal(UnsafeBufferPointer(rebasing: range[(dash + 1)...])), start < end
        else { return nil }
        return Entry(
            start: start, end: end, permissions: String(decoding: permissions, as: UTF8.self), offset: offset,
            path: String(decoding: fields.rest, as: UTF8.self), values: []
        )
    }

    /// The number of a field's line `Name:   123 kB`, when the line is that field's.
    private static func field(_ line: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Int? {
        let nameBytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard line.count >= nameBytes.count, line.prefix(nameBytes.count).elementsEqual(nameBytes) else { return nil }
        var fields = Fields(UnsafeBufferPointer(rebasing: line[nameBytes.count...]))
        guard let digits = fields.next(), !digits.isEmpty, digits.count <= 18 else { return 0 }
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return 0 }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func hexadecimal(_ digits: UnsafeBufferPointer<UInt8>) -> UInt? {
        guard !digits.isEmpty, digits.count <= UInt.bitWidth / 4 else { return nil }
        var value: UInt = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt(nibble)
        }
        return value
    }

    /// The space-separated fields of a line, one at a time; `rest` is what
    /// follows the fields taken, without its leading spaces (a path may
    /// hold spaces).
    private struct Fields {
        private let line: UnsafeBufferPointer<UInt8>
        private var position: Int

        init(_ line: UnsafeBufferPointer<UInt8>) {
            self.line = line
            position = line.startIndex
        }

        private mutating func skipSpaces() {
            while position < line.endIndex, line[position] == UInt8(ascii: " ") { position += 1 }
        }

        mutating func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
            skipSpaces()
            guard position < line.endIndex else { return nil }
            let start = position
            while position < line.endIndex, line[position] != UInt8(ascii: " ") { position += 1 }
            return line[start..<position]
        }

        var rest: Slice<UnsafeBufferPointer<UInt8>> {
            mutating get {
                skipSpaces()
                return line[position...]
            }
        }
    }
}
