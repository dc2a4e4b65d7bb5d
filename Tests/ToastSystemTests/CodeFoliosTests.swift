// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import ToastSystem

@Suite("Code read back in small pages")
struct CodeFoliosTests {
    static let block: UInt = 0x200000
    typealias Span = CodeFolios.Span

    static func mapping(_ start: UInt, _ end: UInt, offset: UInt, path: String = "/usr/bin/toastd") -> CodePages.Mapping {
        CodePages.Mapping(start: start, end: end, path: path, offset: offset)
    }

    @Test("the executable's released mappings, without the hot blocks, with their file offsets")
    func spansAroundTheHotBlocks() {
        let released = [
            // The headers, before the code: read back whole.
            Self.mapping(0x5500_0000_0000, 0x5500_0031_3000, offset: 0),
            // A library's code: never touched, whatever its blocks.
            Self.mapping(0x7f00_0000_0000, 0x7f00_0080_0000, offset: 0, path: "/usr/lib/libc.so.6"),
            // The code: 2 MiB of it before the two hot blocks, 8.5 MiB after.
            Self.mapping(0x5500_0020_0000, 0x5500_0108_2000, offset: 0x20_0000),
        ]
        let blocks: [UInt] = [0x5500_0040_0000, 0x5500_0060_0000]
        let spans = CodeFolios.spans(of: released, executable: "/usr/bin/toastd", excluding: blocks, blockSize: Self.block)
        #expect(spans == [
            Span(address: 0x5500_0000_0000, length: 0x31_3000, offset: 0),
            Span(address: 0x5500_0020_0000, length: 0x20_0000, offset: 0x20_0000),
            Span(address: 0x5500_0080_0000, length: 0x88_2000, offset: 0x80_0000),
        ])
    }

    @Test("a block that covers a mapping, or only touches it, or lies elsewhere")
    func blocksAtTheEdges() {
        let code = Self.mapping(0x40_0000, 0x60_0000, offset: 0x1000)
        // Covering it: nothing is left.
        #expect(CodeFolios.spans(of: [code], executable: "/usr/bin/toastd", excluding: [0x40_0000], blockSize: Self.block).isEmpty)
        // Ending where it starts, and starting where it ends: all of it.
        let whole = [Span(address: 0x40_0000, length: 0x20_0000, offset: 0x1000)]
        #expect(CodeFolios.spans(of: [code], executable: "/usr/bin/toastd", excluding: [0x20_0000, 0x60_0000], blockSize: Self.block) == whole)
        // No hot blocks (small pages, or a debug build): all of it.
        #expect(CodeFolios.spans(of: [code], executable: "/usr/bin/toastd", excluding: [], blockSize: Self.block) == whole)
        // Overlapping its tail: the head is left, its offset unchanged.
        #expect(CodeFolios.spans(of: [code], executable: "/usr/bin/toastd", excluding: [0x50_0000], blockSize: Self.block)
            == [Span(address: 0x40_0000, length: 0x10_0000, offset: 0x1000)])
        // Another executable's path: nothing.
        #expect(CodeFolios.spans(of: [code], executable: "/usr/bin/toastd (deleted)", excluding: [], blockSize: Self.block).isEmpty)
    }
}
