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
        guard let smaps = ProcFile.read("/proc/self/smaps") else { return 0 }
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
    public static func releasable(smaps: String) -> [(mapping: Mapping, resident: Int)] {
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
        for line in smaps.split(separator: "\n") {
            if let header = header(line) {
                close()
                current = header.qualifies ? header.mapping : nil
            } else if line.hasPrefix("Rss:") {
                resident = kilobytes(line) * 1024
            } else if line.hasPrefix("Anonymous:") || line.hasPrefix("Swap:") {
                anonymous = anonymous || kilobytes(line) != 0
            }
        }
        close()
        return found
    }

    /// A mapping's header, `start-end perms offset dev inode [path]`, and
    /// whether the mapping qualifies by it; nil for any other line.
    private static func header(_ line: Substring) -> (mapping: Mapping, qualifies: Bool)? {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5, fields[1].count == 4, !fields[0].hasSuffix(":") else { return nil }
        let bounds = fields[0].split(separator: "-")
        guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start < end else {
            return nil
        }
        let permissions = Array(fields[1].utf8)
        let path = fields.count == 6 ? fields[5].drop(while: { $0 == " " }) : ""
        let qualifies = permissions[1] == UInt8(ascii: "-") && permissions[3] == UInt8(ascii: "p") && path.hasPrefix("/")
        return (Mapping(start: start, end: end, path: String(path)), qualifies)
    }

    private static func kilobytes(_ line: Substring) -> Int {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        return fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
    }
}
