// SPDX-License-Identifier: Apache-2.0
import ToastSystem
#if canImport(Glibc)
import Glibc
#endif

/// The pages a request touches in a server: its mappings' accessed bits
/// cleared (`/proc/PID/clear_refs`), the request, then each mapping's
/// `Referenced:` (`/proc/PID/smaps`). After a rest this machine charges
/// each page's first touch 1.5 to 6 µs (docs/BENCHMARKS.md, "A rest costs
/// by the page"), so these counts are what a request pays for after one,
/// whatever the machine's phase.
///
/// Only the server's own mappings count: its executable's and its
/// anonymous memory. A shared library's pages are referenced by every
/// process that runs them, the client too.
public struct TouchedPages: Sendable, Equatable {
    /// KiB of the executable's code (`r-xp`).
    public var code = 0
    /// KiB of the executable's read-only data and data.
    public var data = 0
    /// KiB of the heap, the stacks and anonymous mappings.
    public var anonymous = 0

    public var total: Int { code + data + anonymous }

    /// Counts `smaps` (the text of /proc/PID/smaps) for `executable`.
    public static func referenced(smaps: String, executable: String) -> TouchedPages {
        var pages = TouchedPages()
        var kind: WritableKeyPath<TouchedPages, Int>?
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-"), fields.count >= 5, first.first?.isHexDigit == true {
                // "start-end perms offset dev inode [path]"
                let path = fields.count > 5 ? fields[5...].joined(separator: " ") : ""
                let executableCode = fields[1].contains("x")
                if path == executable {
                    kind = executableCode ? \.code : \.data
                } else if path.isEmpty || path == "[heap]" || path.hasPrefix("[stack") {
                    kind = \.anonymous
                } else {
                    kind = nil
                }
            } else if first == "Referenced:", let kind, fields.count >= 2, let kib = Int(fields[1]) {
                pages[keyPath: kind] += kib
            }
        }
        return pages
    }

    /// What `body` made process `pid` touch; nil where /proc refuses
    /// (another user's process, without privilege).
    public static func of(_ pid: pid_t, during body: () throws -> Void) rethrows -> TouchedPages? {
        let clear = open("/proc/\(pid)/clear_refs", O_WRONLY | O_CLOEXEC)
        guard clear >= 0 else { return nil }
        let cleared = write(clear, "1", 1) == 1
        close(clear)
        guard cleared else { return nil }
        try body()
        guard let executable = ProcFile.link("/proc/\(pid)/exe") else { return nil }
        return referenced(smaps: readFile("/proc/\(pid)/smaps"), executable: executable)
    }
}
