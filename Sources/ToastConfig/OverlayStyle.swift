// SPDX-License-Identifier: Apache-2.0
import ToastCore

/// How toast-overlay draws its cards: the `[overlay]` table of config.toml.
/// toastd checks it with the rest of the file (`toastd --check-config`
/// reports a typo here with its line), and toast-overlay reads it at start
/// and again whenever the file changes.
///
/// ```toml
/// [overlay]
/// font = "Sans 10"
/// title_font = "Sans Bold 11"
/// width = 400
/// position = "right"        # left, center or right
/// margin = [16, 16]         # from the screen's edges: horizontal, vertical
/// corner_radius = 8
/// opacity = 0.96
/// transition = "slide"      # slide, fade or none
/// output = "DP-1"           # Wayland: a named output (default: the focused one)
/// [overlay.colors]
/// failure = "#b3261e"
/// text = "#ffffff"
/// ```
public struct OverlayStyle: Sendable, Hashable {
    public enum Position: String, Sendable, CaseIterable { case left, center, right }
    public enum Transition: String, Sendable, CaseIterable { case none, fade, slide }

    public var font = "Sans 10"
    public var titleFont = "Sans Bold 11"
    public var width = 400
    public var cornerRadius = 8
    public var padding = 12
    public var gap = 8
    public var margin = (horizontal: 16, vertical: 16)
    public var position = Position.center
    public var opacity = 0.96
    /// Each role's colour, 0xRRGGBB.
    public var colors: [ToastRole: UInt32] = [
        .plain: 0x42_42_42, .info: 0x1E_63_B4, .success: 0x21_8C_21, .warning: 0xC2_7C_0E, .failure: 0xB3_26_1E,
    ]
    public var textColor: UInt32 = 0xFF_FF_FF
    public var transition = Transition.slide
    public var transitionMilliseconds = 150
    /// A Wayland output's name; nil for the compositor's choice (the focused output).
    public var output: String?
    /// The icon theme searched before hicolor, for a toast's icon name.
    public var iconTheme = "Adwaita"

    public init() {}

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.font == rhs.font && lhs.titleFont == rhs.titleFont && lhs.width == rhs.width && lhs.cornerRadius == rhs.cornerRadius
            && lhs.padding == rhs.padding && lhs.gap == rhs.gap && lhs.margin == rhs.margin && lhs.position == rhs.position
            && lhs.opacity == rhs.opacity && lhs.colors == rhs.colors && lhs.textColor == rhs.textColor
            && lhs.transition == rhs.transition && lhs.transitionMilliseconds == rhs.transitionMilliseconds
            && lhs.output == rhs.output && lhs.iconTheme == rhs.iconTheme
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(font)
        hasher.combine(width)
        hasher.combine(colors)
    }

    /// `#rrggbb` as 0xRRGGBB.
    static func color(_ text: String) -> UInt32? {
        guard text.utf8.count == 7, text.hasPrefix("#") else { return nil }
        return UInt32(text.dropFirst(), radix: 16)
    }
}

extension ConfigReader {
    static let overlayKeys: Set<String> = [
        "font", "title_font", "width", "corner_radius", "padding", "gap", "margin", "position", "opacity", "colors",
        "transition", "transition_ms", "output", "icon_theme",
    ]

    mutating func overlayStyle(_ value: JSONValue?) -> OverlayStyle {
        var style = OverlayStyle()
        guard let table = table(value, Place(table: "overlay"), allowed: Self.overlayKeys) else { return style }
        func place(_ key: String) -> Place { Place(table: "overlay", keys: [key]) }
        if let font = string(table["font"], place("font")) { style.font = bounded(font, place("font")) }
        if let font = string(table["title_font"], place("title_font")) { style.titleFont = bounded(font, place("title_font")) }
        if let width = integer(table["width"], place("width"), in: 120...2000) { style.width = width }
        if let radius = integer(table["corner_radius"], place("corner_radius"), in: 0...64) { style.cornerRadius = radius }
        if let padding = integer(table["padding"], place("padding"), in: 0...64) { style.padding = padding }
        if let gap = integer(table["gap"], place("gap"), in: 0...64) { style.gap = gap }
        if let margin = table["margin"] {
            if case .array(let sides) = margin, sides.count == 2, case .int(let x) = sides[0], case .int(let y) = sides[1],
                (0...1000).contains(x), (0...1000).contains(y)
            {
                style.margin = (Int(x), Int(y))
            } else if case .int(let both) = margin, (0...1000).contains(both) {
                style.margin = (Int(both), Int(both))
            } else {
                problem(place("margin"), "must be an integer from 0 to 1000, or [horizontal, vertical], not \(margin.serialized)")
            }
        }
        if let position = enumeration(table["position"], place("position"), OverlayStyle.Position.self) { style.position = position }
        if let opacity = number(table["opacity"], place("opacity"), in: 0.05...1) { style.opacity = opacity }
        if let transition = enumeration(table["transition"], place("transition"), OverlayStyle.Transition.self) { style.transition = transition }
        if let milliseconds = integer(table["transition_ms"], place("transition_ms"), in: 0...2000) { style.transitionMilliseconds = milliseconds }
        if let output = string(table["output"], place("output")) { style.output = output.isEmpty ? nil : bounded(output, place("output")) }
        if let theme = string(table["icon_theme"], place("icon_theme")) {
            if theme.isEmpty || theme.contains("/") || theme.hasPrefix(".") || theme.utf8.count > 64 {
                problem(place("icon_theme"), "must be a theme's directory name (no '/')")
            } else {
                style.iconTheme = theme
            }
        }
        let colorKeys = Set(ToastRole.allCases.map(\.rawValue) + ["text"])
        if let colors = self.table(table["colors"], Place(table: "overlay.colors"), allowed: colorKeys) {
            for key in colors.keys.sorted() where colorKeys.contains(key) {
                let where_ = Place(table: "overlay.colors", keys: [key])
                guard let text = string(colors[key], where_) else { continue }
                guard let color = OverlayStyle.color(text) else {
                    problem(where_, "must be a colour written #rrggbb, not \"\(text)\"")
                    continue
                }
                if let role = ToastRole(rawValue: key) { style.colors[role] = color } else { style.textColor = color }
            }
        }
        return style
    }

    private mutating func bounded(_ text: String, _ place: Place) -> String {
        guard text.utf8.count <= 128, !text.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            problem(place, "must be at most 128 bytes, without control characters")
            return String(text.prefix(0))
        }
        return text
    }
}
