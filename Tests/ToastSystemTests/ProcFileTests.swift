// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastSystem

/// `ProcFile.numberedEntries` against this process's own /proc.
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
}
