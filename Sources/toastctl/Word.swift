// SPDX-License-Identifier: Apache-2.0

extension StaticString {
    /// The text's UTF-8 bytes, in place.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}

/// One word of the command line (or any run of bytes), read in place.
struct Word {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// A C string's bytes, without its terminating zero.
    init(cString: UnsafePointer<CChar>) {
        var count = 0
        while cString[count] != 0 { count += 1 }
        bytes = UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: count)
    }

    var count: Int { bytes.count }
    var isEmpty: Bool { bytes.isEmpty }

    func hasPrefix(_ prefix: StaticString) -> Bool {
        guard prefix.utf8CodeUnitCount <= count else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where bytes[index] != prefix.utf8Start[index] { return false }
        return true
    }

    func hasSuffix(_ suffix: StaticString) -> Bool {
        let length = suffix.utf8CodeUnitCount
        guard length <= count else { return false }
        for index in 0..<length where bytes[count - length + index] != suffix.utf8Start[index] { return false }
        return true
    }

    static func == (word: Word, text: StaticString) -> Bool {
        word.count == text.utf8CodeUnitCount && word.hasPrefix(text)
    }

    func firstIndex(of byte: UInt8) -> Int? {
        for index in 0..<count where bytes[index] == byte { return index }
        return nil
    }

    /// The bytes from `start` up to `end`.
    func slice(_ start: Int, _ end: Int) -> Word {
        Word(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }
}
