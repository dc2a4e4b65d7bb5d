// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

/// `ProcFile.numberedEntries` and `ProcFile.link` against this process's own /proc.
@Suite("A /proc directory's numbered entries")
struct ProcFileTests {
    @Test func theProcessAndItsThreadsAndDescriptorsAreListed() throws {
        let processes = try #require(ProcFile.numberedEntries("/proc"))
        #expect(processes.contains(String(getpid())))
        #expect(!processes.contains("self"), "only numbered entries")
        // The main thread's id is the process's.
        #expect(try #require(ProcFile.numberedEntries("/proc/self/task")).contains(String(getpid())))
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let descriptors = try #require(ProcFile.numberedEntries("/proc/self/fd"))
        #expect(descriptors.contains(String(fd)))
        #expect(!descriptors.contains(".") && !descriptors.contains(".."))
    }

    @Test func aDirectoryThatCannotBeReadIsNil() {
        #expect(ProcFile.numberedEntries("/proc/self/no-such-directory") == nil)
    }

    /// `ProcFile.link`: where /proc/self/fd/N points is the file opened;
    /// what is not a link is nil.
    @Test func aLinkNamesItsTarget() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-proc-link")
        defer { directory.remove() }
        let path = directory.path + "/file with a space"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(ProcFile.link("/proc/self/fd/\(fd)") == path)
        let executable = try #require(ProcFile.link("/proc/self/exe"))
        #expect(executable.hasPrefix("/") && access(executable, X_OK) == 0, "\(executable)")
        #expect(ProcFile.link("/proc/self/status") == nil)
        #expect(ProcFile.link(directory.path + "/missing") == nil)
    }
}
