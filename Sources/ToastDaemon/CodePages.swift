// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import ToastSystem
import Glibc
#endif

/// Lets go of the code pages that toastd is not using.
///
/// Starting toastd runs code it never runs again (argument parsing, the
/// configuration, opening and migrating the store, the Swift runtime's
/// first look-ups), scattered over a 30 MB binary; the kernel maps the 64 KiB
/// around each page it faults in, so an idle toastd kept about 13 MiB of its
/// own code mapped. Once it is ready, toastd unmaps, once, the read-only
/// file mappings whose pages are all still the file's (`MADV_DONTNEED`):
/// the pages stay in the page cache, and the requests fault back in the
/// pages they need, which then stay (`ServiceManagerDuties`). Mappings
/// with a private copy of any page (relocated RELRO data, a debugger's
/// breakpoint) and writable mappings are left alone, since dropping those
/// would lose their contents. docs/BENCHMARKS.md section 4 has the
/// measurements.
public enum CodePages {
    /// A mapping that can be let go of.
    public struct Mapping: Equatable, Sendable {
        public var start: UInt
        public var end: UInt
        public var path: String
    }

    /// Unmaps every releasable mapping of this process; returns the bytes
    /// that were resident in them before.
    @discardableResult
    public static func release() -> Int {
        guard let smaps = ProcFile.bytes("/proc/self/smaps") else { return 0 }
        var released = 0
        for (mapping, resident) in releasable(smaps: smaps) {
            if madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                released += resident
            }
        }
        return released
    }

    /// The mappings in an smaps text that may be unmapped, with the bytes
    /// resident in each: private, not writable, backed by a file (a path,
    /// not `[vdso]` or an anonymous region), and every page of it still the
    /// file's (no private copy, in memory or swapped out: a relocated RELRO
    /// page would come back as the file's unrelocated bytes). `Private_Dirty`
    /// is no guide: it also counts page-cache pages not yet written back.
    ///
    /// Read as bytes, line by line: splitting the text into Strings took
    /// three quarters of the release's time, about 4 ms of a core at every
    /// start (docs/BENCHMARKS.md, "At rest").
    public static func releasable(smaps: [UInt8]) -> [(mapping: Mapping, resident: Int)] {
        var found: [(Mapping, Int)] = []
        var current: Mapping?
        var resident = 0
        var anonymous = false
        func close() {
            if let mapping = current, !anonymous, resident > 0 { found.append((mapping, resident)) }
            current = nil
            resident = 0
            anonymous = false
        }
        smaps.withUnsafeBufferPointer { text in
            var lineStart = 0
            while lineStart < text.count {
                var lineEnd = lineStart
                while lineEnd < text.count, text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                let line = UnsafeBufferPointer(rebasing: text[lineStart..<lineEnd])
                lineStart = lineEnd + 1
                if let header = header(line) {
                    close()
                    current = header.qualifies ? header.mapping : nil
                } else if let size = field(line, "Rss:") {
                    resident = size * 1024
                } else if let size = field(line, "Anonymous:") ?? field(line, "Swap:") {
                    anonymous = anonymous || size != 0
                }
            }
        }
        close()
        return found
    }

    /// A mapping's header, `start-end perms offset dev inode [path]`, and
    /// whether the mapping qualifies by it; nil for any other line (a
    /// field's line starts with its name and a colon, never with an address).
    private static func header(_ line: UnsafeBufferPointer<UInt8>) -> (mapping: Mapping, qualifies: Bool)? {
        var fields = Fields(line)
        guard let range = fields.next(), let permissions = fields.next(), permissions.count == 4,
            fields.next() != nil, fields.next() != nil, fields.next() != nil,
            range.last != UInt8(ascii: ":"), let dash = range.firstIndex(of: UInt8(ascii: "-")),
            let start = hexadecimal(UnsafeBufferPointer(rebasing: range[..<dash])),
            let end = hexadecimal(UnsafeBufferPointer(rebasing: range[(dash + 1)...])), start < end
        else { return nil }
        let path = fields.rest
        let qualifies = permissions[permissions.startIndex + 1] == UInt8(ascii: "-")
            && permissions[permissions.startIndex + 3] == UInt8(ascii: "p") && path.first == UInt8(ascii: "/")
        return (Mapping(start: start, end: end, path: String(decoding: path, as: UTF8.self)), qualifies)
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
