// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
import ToastSystem

/// `TemporaryDirectory`: made private, removed whole, never through a link.
@Suite("A temporary directory")
struct TemporaryDirectoryTests {
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    private static func create(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        _ = Glibc.write(fd, "x", 1)
        close(fd)
    }

    @Test func itIsMadePrivateUnderItsPrefix() throws {
        let directory = try TemporaryDirectory(prefix: "toastd-tempdir-test")
        defer { directory.remove() }
        #expect(directory.path.hasPrefix("/tmp/toastd-tempdir-test-"))
        var status = stat()
        #expect(stat(directory.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
        #expect(status.st_mode & S_IFMT == S_IFDIR)
    }

    @Test func aTreeIsRemovedWholeAndWhatItsLinksPointAtStays() throws {
        let outside = try TemporaryDirectory(prefix: "toastd-tempdir-outside")
        defer { outside.remove() }
        Self.create(outside.path + "/precious")
        mkdir(outside.path + "/kept", 0o755)
        Self.create(outside.path + "/kept/also-precious")

        let directory = try TemporaryDirectory(prefix: "toastd-tempdir-test")
        let root = directory.path
        for sub in ["/state", "/state/deep", "/state/deep/deeper", "/empty"] { mkdir(root + sub, 0o755) }
        for file in ["/log", "/state/toastd.sqlite", "/state/deep/deeper/file"] { Self.create(root + file) }
        symlink(outside.path + "/precious", root + "/link-to-a-file")
        symlink(outside.path + "/kept", root + "/state/link-to-a-directory")
        // A socket and a directory without write permission for its owner.
        mkfifo(root + "/state/fifo", 0o600)
        mkdir(root + "/locked", 0o755)
        Self.create(root + "/locked/inside")
        chmod(root + "/locked", 0o500)

        #expect(directory.remove())
        #expect(!Self.exists(root))
        #expect(Self.exists(outside.path + "/precious"), "a link is removed, not followed")
        #expect(Self.exists(outside.path + "/kept/also-precious"), "a link to a directory is not walked")
        #expect(directory.remove(), "removing it again finds nothing left")
    }

    @Test func aLinkGivenAsTheRootIsRemovedAloneAndAFileToo() throws {
        let outside = try TemporaryDirectory(prefix: "toastd-tempdir-outside")
        defer { outside.remove() }
        Self.create(outside.path + "/precious")
        let link = outside.path + "-link"
        symlink(outside.path, link)
        #expect(TemporaryDirectory.removeTree(link))
        #expect(!Self.exists(link))
        #expect(Self.exists(outside.path + "/precious"))
        #expect(TemporaryDirectory.removeTree(outside.path + "/precious"))
        #expect(!Self.exists(outside.path + "/precious"))
    }

    @Test func aParentThatIsNotThereIsAnError() {
        #expect(throws: SystemCallError.self) { try TemporaryDirectory(prefix: "x", in: "/nonexistent-toastd-parent") }
    }
}
