// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Lets go of the code pages that this process is not using: toastd once it
/// is ready, where the page cache holds its binary in large folios
/// (`ServiceManagerDuties`, `LargeFolios`), toast-overlay once it is idle
/// (`StartUpPages`).
///
/// Starting toastd runs code it never runs again (argument parsing, the
/// configuration, opening and migrating the store, the Swift runtime's
/// first look-ups), scattered over a 30 MB binary; the kernel maps the 64 KiB
/// around each page it faults in, so an idle toastd kept about 13 MiB of its
/// own code mapped. Once it is ready, toastd (where it does) unmaps, once, the read-only
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
        /// Where in its file the mapping starts.
        public var offset: UInt = 0
    }

    /// What `release` let go of.
    public struct Released: Sendable {
        /// The bytes that were resident in the mappings.
        public var bytes = 0
        public var mappings: [Mapping] = []

        public init() {}
    }

    /// Unmaps every releasable mapping of this process.
    @discardableResult
    public static func release() -> Released {
        guard let smaps = ProcFile.bytes("/proc/self/smaps") else { return Released() }
        var released = Released()
        for (mapping, resident) in releasable(smaps: smaps) {
            if madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                released.bytes += resident
                released.mappings.append(mapping)
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
        MappingsText.entries(smaps, fields: ["Rss:", "Anonymous:", "Swap:"]).compactMap { entry in
            let (rss, anonymous, swap) = (entry.values[0], entry.values[1], entry.values[2])
            guard entry.isPrivateReadOnlyFile, rss > 0, anonymous == 0, swap == 0 else { return nil }
            return (Mapping(start: entry.start, end: entry.end, path: entry.path, offset: entry.offset), rss * 1024)
        }
    }
}
