// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

@Suite("Whether the code sits in large folios")
struct LargeFoliosTests {
    static let page: UInt = 4096

    /// A pagemap excerpt: 8 little-endian bytes a page, bit 63 when present.
    static func pagemap(_ present: [Bool]) -> [UInt8] {
        present.flatMap { present -> [UInt8] in
            let entry: UInt64 = present ? 1 << 63 | 0x12345 : 0x12345
            return (0..<8).map { UInt8(truncatingIfNeeded: entry >> ($0 * 8)) }
        }
    }

    @Test func presentPagesAreReadFromBit63() {
        let present = [true, false, false, true, true]
        #expect(LargeFolios.present(pagemap: Self.pagemap(present)) == present)
        // A short read's partial entry is not a page.
        #expect(LargeFolios.present(pagemap: Self.pagemap(present) + [0xff, 0xff, 0xff]) == present)
        #expect(LargeFolios.present(pagemap: []).isEmpty)
    }

    @Test func aFaultThatMapsOnlyTheAligned64KiBAroundItsPageIsASmallFolios() {
        var present = [Bool](repeating: false, count: 512)
        for index in 32..<48 { present[index] = true }
        #expect(!LargeFolios.mappedBeyondFaultAround(present, touched: 40))
        #expect(!LargeFolios.mappedBeyondFaultAround(present, touched: 32))
        // The same pages, but the fault was at a page whose window they are not.
        #expect(LargeFolios.mappedBeyondFaultAround(present, touched: 48))
        present[48] = true
        #expect(LargeFolios.mappedBeyondFaultAround(present, touched: 40))
        #expect(LargeFolios.mappedBeyondFaultAround([Bool](repeating: true, count: 512), touched: 300))
        #expect(!LargeFolios.mappedBeyondFaultAround([Bool](repeating: false, count: 512), touched: 300))
    }

    @Test func probesAreMappedPagesSpreadOverTheCodeOutsideTheHotBlocks() {
        let start: UInt = 0x40_0000
        let block: UInt = 0x20_0000
        var present = [Bool](repeating: false, count: 2048)  // 8 MiB
        for index in stride(from: 0, to: 2048, by: 16) { present[index] = true }  // 128 pages
        let pages = LargeFolios.probePages(present, start: start, excluding: [start], blockSize: block, count: 8)
        #expect(pages.count == 8)
        #expect(pages.allSatisfy { $0 >= start + block && present[Int(($0 - start) / Self.page)] })
        #expect(pages == pages.sorted() && Set(pages).count == 8)
        // Spread: from the first quarter of what is left to the last.
        #expect(pages.first! < start + block + 0x20_0000 && pages.last! >= start + 0x60_0000)
        #expect(LargeFolios.probePages(present, start: start, excluding: [], blockSize: block, count: 0).isEmpty)
        #expect(LargeFolios.probePages([Bool](repeating: false, count: 64), start: start, excluding: [], blockSize: block, count: 8).isEmpty)
        // Fewer candidates than probes: each once.
        #expect(LargeFolios.probePages([true, false, true], start: start, excluding: [], blockSize: block, count: 8) == [start, start + 2 * Self.page])
    }

    /// A file written a page at a time sits in small folios; one written
    /// with one write, in large ones where the kernel makes them (ext4 since
    /// Linux 6.16). The probe tells them apart through a real fault.
    @Test func aRealFaultTellsAFileWrittenWholeFromOneWrittenInPages() throws {
        let directory = try TemporaryDirectory(prefix: "large-folios")
        defer { directory.remove() }
        let bytes = [UInt8](repeating: 0x5a, count: 8 << 20)
        func written(_ name: String, chunk: Int) throws -> Int32 {
            let path = directory.path + "/" + name
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + start, min(chunk, $0.count - start)) }
                guard count > 0 else { throw POSIXError(.EIO) }
            }
            return fd
        }
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        try #require(pagemap >= 0)
        defer { close(pagemap) }
        let small = try written("small", chunk: 4096)
        defer { close(small) }
        for offset in stride(from: 1 << 20, to: 8 << 20, by: 2 << 20) {
            #expect(!LargeFolios.faultMapsMore(small, at: offset, pagemap: pagemap), "at \(offset)")
        }
        let whole = try written("whole", chunk: bytes.count)
        defer { close(whole) }
        let large = stride(from: 1 << 20, to: 8 << 20, by: 2 << 20).filter { LargeFolios.faultMapsMore(whole, at: $0, pagemap: pagemap) }
        // Where the kernel keeps no file in large folios, there is nothing to tell apart.
        if Self.kernelKeepsLargeFolios { #expect(!large.isEmpty) }
    }

    /// ext4 keeps large folios since Linux 6.16.
    static var kernelKeepsLargeFolios: Bool {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let parts = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        return parts.count == 2 && (parts[0], parts[1]) >= (6, 16)
    }
}
