// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What a packager checks first (issue #43): the license, a header on every
/// source file, and dependencies pinned to exact versions.
@Suite("license and pins")
struct LicenseTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everySourceFileNamesItsLicense() throws {
        let license = try String(contentsOf: Self.root.appending(path: "LICENSE"), encoding: .utf8)
        #expect(license.contains("Apache License") && license.contains("Version 2.0"))
        var missing: [String] = []
        for directory in ["Sources", "Tests", "scripts", "bench", "Examples"] {
            guard let walker = FileManager.default.enumerator(atPath: Self.root.appending(path: directory).path) else { continue }
            for case let path as String in walker
            where [".swift", ".c", ".h", ".sh", ".py"].contains(where: path.hasSuffix) && !path.contains("Golden/") && !path.contains("Fixtures/") {
                let head = try String(contentsOf: Self.root.appending(path: "\(directory)/\(path)"), encoding: .utf8).prefix(300)
                if !head.contains("SPDX-License-Identifier: Apache-2.0") { missing.append("\(directory)/\(path)") }
            }
        }
        #expect(missing.isEmpty, "no SPDX header: \(missing)")
    }

    @Test func dependenciesArePinnedExactly() throws {
        let manifest = try String(contentsOf: Self.root.appending(path: "Package.swift"), encoding: .utf8)
        let lines = manifest.split(separator: "\n").filter { $0.contains(".package(url:") }
        #expect(!lines.isEmpty)
        for line in lines { #expect(line.contains("exact:"), "\(line)") }
    }
}
