// SPDX-License-Identifier: Apache-2.0
/// The bounds of every number toastd can be configured with, by flag or by
/// file. Each bound is written here once: toastd's flags (through
/// `DaemonOptions.Limits`) and the configuration file refuse a value outside
/// it with a message that quotes it, and nothing below them clamps.
public enum ConfigurationLimits {
    /// Shown slots of one stack.
    public static let maxVisible = 1...100
    /// Live toasts held, in all or for one source.
    public static let maxToasts = 1...10_000_000
    /// Ended toasts kept for `history`.
    public static let historySize = 0...1_000_000
    /// Recent events kept for subscribers that resume.
    public static let resumeEvents = 0...1_000_000
    /// A toast's or a role's level.
    public static let level = 0...100
    /// The level of a pause or of an inhibitor (0 would hold nothing back).
    public static let pauseLevel = 1...100
    /// Seconds a rule's `exec` command may run.
    public static let execTimeoutSeconds = 0.1...3_600.0
    /// Rule commands running at once.
    public static let execMaxRunning = 1...64
}
