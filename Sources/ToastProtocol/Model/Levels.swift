// SPDX-License-Identifier: Apache-2.0
/// Levels are 0...100. A pause holds back the toasts below its level.
public struct PauseLevels: Sendable, Hashable {
    /// The level of `pause` when it names none.
    public var defaultLevel = 50
    /// The level held while any connection holds an inhibitor.
    public var inhibitLevel = 50
    /// Each role's level; a role not named here is at 0. By default a
    /// failure breaks through a plain `pause`.
    public var roles: [ToastRole: Int] = [.failure: 80]

    public static let range = ConfigurationLimits.level

    public init() {}
}

/// The toast fields a sender left out, which role defaults may fill.
public struct ToastFieldSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let duration = Self(rawValue: 1)
    public static let alignment = Self(rawValue: 2)
    public static let dismissible = Self(rawValue: 4)
    public static let all: Self = [.duration, .alignment, .dismissible]
}
