// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a dictionary, without Foundation.
public enum ProcessInfoEnvironment {
    /// One variable, straight from `getenv`.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    public static var current: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
