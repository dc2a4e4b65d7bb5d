// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import ToastProtocol

@Suite("A toast's image and its wire form")
struct ToastImageTests {
    @Test("base64 agrees with Foundation's at every length, and refuses what is not canonical")
    func base64() {
        var bytes: [UInt8] = []
        for length in 0..<200 {
            let encoded = Base64.encode(bytes)
            #expect(encoded == Data(bytes).base64EncodedString(), "length \(length)")
            #expect(Base64.decode(encoded) == bytes)
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 11))
        }
        for bad in ["A", "AB=", "A===", "AB*=", "QQ==QQ==", "QR==", "Q Q=", "QQ=A"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("a large RGB picture is scaled to fit 64 pixels, keeping its aspect; a small one keeps its size")
    func scaling() throws {
        let (width, height) = (4_000, 2_000)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        // Left half red, right half blue.
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                if x < width / 2 { pixels[offset] = 255 } else { pixels[offset + 2] = 255 }
            }
        }
        let scaled = try #require(pixels.withUnsafeBytes { ToastImage.scaled(width: width, height: height, rowstride: width * 3, channels: 3, bytes: $0) })
        guard case .pixels(let outWidth, let outHeight, let rgba) = scaled else { Issue.record("not pixels"); return }
        #expect(outWidth == 64 && outHeight == 32)
        #expect(rgba.count == 64 * 32 * 4)
        #expect(Array(rgba[0..<4]) == [255, 0, 0, 255], "the left is red and opaque")
        #expect(Array(rgba[(63 * 4)..<(64 * 4)]) == [0, 0, 255, 255], "the right is blue")
        #expect(scaled.problem == nil)
        let small: [UInt8] = [10, 20, 30, 40, 50, 60, 70, 80]
        let kept = small.withUnsafeBytes { ToastImage.scaled(width: 2, height: 1, rowstride: 8, channels: 4, bytes: $0) }
        #expect(kept == .pixels(width: 2, height: 1, rgba: small))
        #expect(small.withUnsafeBytes { ToastImage.scaled(width: 3, height: 1, rowstride: 8, channels: 4, bytes: $0) } == nil, "too few bytes")
    }

    @Test("an image is a path or pixels, in a member of add, read back as written")
    func wire() throws {
        let pixels = ToastImage.pixels(width: 1, height: 2, rgba: [1, 2, 3, 4, 5, 6, 7, 8])
        for image in [ToastImage.path("/tmp/a.png"), pixels] {
            var toast = Toast(message: "m")
            toast.image = image
            let line = WireEncoder.request(.command(.add(toast))).serialized
            guard case .success(let envelope) = WireDecoder.decode(line: line), case .command(.add(let decoded)) = envelope.request else {
                Issue.record("not an add: \(line)")
                continue
            }
            #expect(decoded.image == image)
        }
        let refusals = [
            #"{"path":"/a","width":1}"#, #"{"width":65,"height":1,"rgba":""}"#, #"{"width":1,"height":1,"rgba":"AAAA"}"#,
            #"{"width":1,"height":1,"rgba":"!!!!!!!!"}"#, #"{}"#, #""/a.png""#,
        ]
        for image in refusals {
            let line = #"{"op":"add","toast":{"message":"m","image":\#(image)}}"#
            guard case .failure = WireDecoder.decode(line: line) else {
                Issue.record("took \(image)")
                continue
            }
        }
    }
}
