// SPDX-License-Identifier: Apache-2.0

extension UnsafeBufferPointer<UInt8> {
    /// Whether every byte is below 0x80 (so the bytes are UTF-8), read
    /// eight at a time: the test a request's line and a stored toast's
    /// texts pass before any slower look at their UTF-8.
    package var isASCII: Bool {
        guard let base = baseAddress else { return true }
        var union: UInt64 = 0
        var offset = 0
        while offset + 8 <= count {
            union |= UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            offset += 8
        }
        while offset < count {
            union |= UInt64(base[offset])
            offset += 1
        }
        return union & 0x8080_8080_8080_8080 == 0
    }
}
