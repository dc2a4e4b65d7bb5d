// SPDX-License-Identifier: Apache-2.0
import COverlay
import ToastConfig
import ToastProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Hands cards and the style to the C side (COverlay copies what it keeps).
enum CardBridge {
    static func show(_ cards: [CardContent], in alignment: ToastAlignment, on overlay: OpaquePointer, spinnerPhase: Double) {
        var owned: [UnsafeMutableRawPointer] = []
        defer { owned.forEach { free($0) } }
        func c(_ text: String?) -> UnsafePointer<CChar>? {
            guard let text, let copy = strdup(text) else { return nil }
            owned.append(UnsafeMutableRawPointer(copy))
            return UnsafePointer(copy)
        }
        var converted = cards.map { card in
            var out = toast_overlay_card()
            out.id = Int64(card.id)
            out.role = Int32(card.role.caseIndex)
            switch card.icon {
            case .glyph(let glyph): out.glyph = c(glyph)
            case .file(let path): out.icon_path = c(path)
            case .pixels(let width, let height, let rgba) where rgba.count == width * height * 4:
                let copy = malloc(max(rgba.count, 1))!
                rgba.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: rgba.count) }
                owned.append(copy)
                out.pixels = UnsafePointer(copy.assumingMemoryBound(to: UInt8.self))
                out.pixels_width = Int32(width)
                out.pixels_height = Int32(height)
            case .pixels: break
            }
            if out.glyph == nil { out.glyph = c(OverlayModel.style(of: card.role).glyph) }
            out.title = c(card.title)
            out.message = c(card.message)
            out.message_markup = c(card.markup)
            out.progress = card.progress ?? -1
            out.spinner = card.spinner ? 1 : 0
            out.spinner_phase = spinnerPhase
            out.repeat_count = Int32(card.repeatCount)
            out.countdown = c(card.countdown)
            out.notice = c(card.notice)
            out.close_button = card.closeButton ? 1 : 0
            let labels = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(card.buttons.count, 1))
            owned.append(UnsafeMutableRawPointer(labels))
            for (index, button) in card.buttons.prefix(Int(TOAST_OVERLAY_MAX_ACTIONS)).enumerated() {
                labels[index] = c(OverlayModel.drawable(button.label))
            }
            out.action_count = Int32(min(card.buttons.count, Int(TOAST_OVERLAY_MAX_ACTIONS)))
            out.action_labels = UnsafePointer(labels)
            return out
        }
        let stack: Int32 = alignment == .top ? 0 : alignment == .center ? 1 : 2
        toast_overlay_show(overlay, stack, &converted, Int32(converted.count))
    }
}

/// The style as COverlay takes it, for the length of `body`.
func withCStyle<Result>(_ style: OverlayStyle, _ body: (inout toast_overlay_style) -> Result) -> Result {
    style.titleFont.withCString { titleFont in
        style.font.withCString { font in
            (style.output ?? "").withCString { output in
                var c = toast_overlay_style()
                c.title_font = titleFont
                c.font = font
                c.output = output
                c.width = Int32(style.width)
                c.radius = Int32(style.cornerRadius)
                c.padding = Int32(style.padding)
                c.gap = Int32(style.gap)
                c.margin_x = Int32(style.margin.horizontal)
                c.margin_y = Int32(style.margin.vertical)
                c.horizontal = style.position == .left ? 0 : style.position == .center ? 1 : 2
                c.opacity = style.opacity
                withUnsafeMutableBytes(of: &c.colors) { colors in
                    let slots = colors.bindMemory(to: UInt32.self)
                    for role in ToastRole.allCases { slots[role.caseIndex] = style.colors[role] ?? 0x42_42_42 }
                }
                c.text_color = style.textColor
                c.transition = style.transition == .none ? 0 : style.transition == .fade ? 1 : 2
                c.transition_ms = Int32(style.transitionMilliseconds)
                return body(&c)
            }
        }
    }
}
