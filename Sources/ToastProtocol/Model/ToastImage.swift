// SPDX-License-Identifier: Apache-2.0
/// A toast's picture, beside its icon: an image file, or a few pixels a
/// sender gave (freedesktop's `image-data`), already scaled down.
public enum ToastImage: Sendable, Hashable {
    /// An image file, or a `file://` URI, as the sender named it. Viewers
    /// open it themselves (it is their user's file, as the socket is).
    case path(String)
    /// RGBA, 8 bits a channel, rows packed: `width × height × 4` bytes, at
    /// most `ToastLimits.imagePixels` on a side.
    case pixels(width: Int, height: Int, rgba: [UInt8])

    /// Why it cannot be a toast's image, or nil.
    public var problem: String? {
        switch self {
        case .path(let path):
            if path.isEmpty || path.utf8.count > ToastLimits.imagePathBytes {
                return "a path of 1 to \(ToastLimits.imagePathBytes) bytes"
            }
            if path.utf8.contains(0) { return "a path without NUL" }
            return nil
        case .pixels(let width, let height, let rgba):
            let side = 1...ToastLimits.imagePixels
            guard side.contains(width), side.contains(height) else {
                return "at most \(ToastLimits.imagePixels)×\(ToastLimits.imagePixels) pixels"
            }
            guard rgba.count == width * height * 4 else { return "width × height × 4 bytes of RGBA" }
            return nil
        }
    }

    /// Scales an RGB or RGBA picture (8 bits a channel) down to fit
    /// `ToastLimits.imagePixels` on its longer side, keeping its aspect;
    /// smaller ones keep their size. Each output pixel averages at most 4×4
    /// samples of its source area, so the cost is bounded whatever the
    /// input's size. `bytes` must hold what the geometry says (checked by
    /// the caller, as the bridge's `validateImage`); nil if it does not.
    public static func scaled(
        width: Int, height: Int, rowstride: Int, channels: Int, bytes: UnsafeRawBufferPointer
    ) -> ToastImage? {
        guard width > 0, height > 0, channels == 3 || channels == 4, rowstride >= width * channels,
            bytes.count >= rowstride * (height - 1) + width * channels
        else { return nil }
        let limit = ToastLimits.imagePixels
        let scale = max(1.0, Double(max(width, height)) / Double(limit))
        let outWidth = max(1, min(limit, Int((Double(width) / scale).rounded())))
        let outHeight = max(1, min(limit, Int((Double(height) / scale).rounded())))
        var rgba = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        for y in 0..<outHeight {
            let top = y * height / outHeight
            let bottom = max(top + 1, (y + 1) * height / outHeight)
            let rowStep = max(1, (bottom - top) / 4)
            for x in 0..<outWidth {
                let left = x * width / outWidth
                let right = max(left + 1, (x + 1) * width / outWidth)
                let columnStep = max(1, (right - left) / 4)
                var sums = (0, 0, 0, 0)
                var samples = 0
                var row = top
                while row < bottom {
                    var column = left
                    while column < right {
                        let offset = row * rowstride + column * channels
                        sums.0 += Int(bytes[offset])
                        sums.1 += Int(bytes[offset + 1])
                        sums.2 += Int(bytes[offset + 2])
                        sums.3 += channels == 4 ? Int(bytes[offset + 3]) : 255
                        samples += 1
                        column += columnStep
                    }
                    row += rowStep
                }
                let out = (y * outWidth + x) * 4
                rgba[out] = UInt8(sums.0 / samples)
                rgba[out + 1] = UInt8(sums.1 / samples)
                rgba[out + 2] = UInt8(sums.2 / samples)
                rgba[out + 3] = UInt8(sums.3 / samples)
            }
        }
        return .pixels(width: outWidth, height: outHeight, rgba: rgba)
    }
}

/// Freedesktop's urgency, kept beside the role a toast was given for it.
public enum ToastUrgency: String, Sendable, Hashable, CaseIterable {
    case low, normal, critical

    /// The spec's byte: 0, 1, 2.
    public init(level: UInt8) {
        self = level == 0 ? .low : level >= 2 ? .critical : .normal
    }

    public var level: UInt8 {
        switch self {
        case .low: 0
        case .normal: 1
        case .critical: 2
        }
    }
}
