// SPDX-License-Identifier: Apache-2.0
/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed hash made for
/// authenticating short messages. The journal signs each record with it
/// (`StepJournal`), under a random key that only the 0600 database holds,
/// so a record that toastd did not write is never applied, whoever could
/// write the file.
///
/// Hand-written because the one thing needed is this function on bytes:
/// swift-crypto's HMAC would add a package of about 40 MB of sources to
/// every build for it. The reference vectors of the paper hold it
/// (`SipHashTests`).
struct SipHash {
    struct Key: Equatable, Sendable {
        var k0: UInt64
        var k1: UInt64

        /// 16 random bytes from the system's generator.
        static func random() -> Key {
            var generator = SystemRandomNumberGenerator()
            return Key(k0: generator.next(), k1: generator.next())
        }

        /// The key as stored: 32 hex digits, k0 then k1, each little-endian.
        var hex: String {
            (0..<16).map { index in
                let byte = UInt8(truncatingIfNeeded: (index < 8 ? k0 : k1) >> (8 * UInt64(index % 8)))
                return String(byte, radix: 16).leftPadded(to: 2)
            }.joined()
        }

        init(k0: UInt64, k1: UInt64) {
            self.k0 = k0
            self.k1 = k1
        }

        init?(hex: String) {
            let bytes = Array(hex.utf8)
            guard bytes.count == 32 else { return nil }
            var words: [UInt64] = [0, 0]
            for index in 0..<16 {
                guard let byte = UInt8(String(decoding: bytes[2 * index..<2 * index + 2], as: UTF8.self), radix: 16) else { return nil }
                words[index / 8] |= UInt64(byte) << (8 * UInt64(index % 8))
            }
            self.init(k0: words[0], k1: words[1])
        }
    }

    private var v0: UInt64
    private var v1: UInt64
    private var v2: UInt64
    private var v3: UInt64
    /// Bytes not yet taken into a word, and how many there are.
    private var tail: UInt64 = 0
    private var tailCount = 0
    /// Bytes taken into words so far.
    private var taken = 0

    init(key: Key) {
        v0 = key.k0 ^ 0x736f_6d65_7073_6575
        v1 = key.k1 ^ 0x646f_7261_6e64_6f6d
        v2 = key.k0 ^ 0x6c79_6765_6e65_7261
        v3 = key.k1 ^ 0x7465_6462_7974_6573
    }

    mutating func combine<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            tail |= UInt64(byte) << (8 * UInt64(tailCount))
            tailCount += 1
            if tailCount == 8 {
                compress(tail)
                tail = 0
                tailCount = 0
            }
        }
    }

    mutating func combine(_ word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { combine(CollectionOfOne(UInt8(truncatingIfNeeded: word >> UInt64(shift)))) }
    }

    private mutating func compress(_ message: UInt64) {
        taken += 8
        v3 ^= message
        round()
        round()
        v0 ^= message
    }

    consuming func finalize() -> UInt64 {
        let total = taken + tailCount
        compress(tail | UInt64(truncatingIfNeeded: total) << 56)
        v2 ^= 0xff
        round()
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    @inline(__always)
    private mutating func round() {
        v0 &+= v1
        v1 = v1.rotatedLeft(13) ^ v0
        v0 = v0.rotatedLeft(32)
        v2 &+= v3
        v3 = v3.rotatedLeft(16) ^ v2
        v0 &+= v3
        v3 = v3.rotatedLeft(21) ^ v0
        v2 &+= v1
        v1 = v1.rotatedLeft(17) ^ v2
        v2 = v2.rotatedLeft(32)
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: Swift.max(0, width - count)) + self }
}
