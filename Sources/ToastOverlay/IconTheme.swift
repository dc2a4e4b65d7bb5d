// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A freedesktop icon name resolved to a file, as the icon theme
/// specification lays themes out: the configured theme, then hicolor, in
/// `$XDG_DATA_HOME/icons`, each of `$XDG_DATA_DIRS`' `icons`, and
/// `/usr/share/pixmaps`; the sizes nearest a card's icon first. A name is
/// looked up once; the answer (a miss too) is kept.
public struct IconTheme {
    let theme: String
    let bases: [String]
    private var known: [String: String?] = [:]

    static let sizes = ["48x48", "64x64", "32x32", "scalable", "96x96", "128x128", "256x256", "24x24", "22x22", "16x16"]
    static let contexts = ["apps", "status", "devices", "actions", "mimetypes", "places", "categories", "emblems", "emotes", "legacy"]

    public init(theme: String, environment: [String: String]) {
        self.theme = theme
        var bases: [String] = []
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            bases.append(data + "/icons")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            bases.append(home + "/.local/share/icons")
        }
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        bases += dirs.split(separator: ":").filter { $0.hasPrefix("/") }.map { $0 + "/icons" }
        self.bases = bases
    }

    /// Whether `name` can be an icon name at all (not a path, not an emoji).
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128 && name.first != "."
            && name.utf8.allSatisfy { $0 == 0x2D || $0 == 0x2E || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    public mutating func file(for name: String) -> String? {
        guard Self.isName(name) else { return nil }
        if let answer = known[name] { return answer }
        let answer = search(name)
        if known.count > 512 { known = [:] }
        known[name] = answer
        return answer
    }

    private func search(_ name: String) -> String? {
        for theme in [theme, "hicolor"] {
            for base in bases where isDirectory(base + "/" + theme) {
                for size in Self.sizes where isDirectory("\(base)/\(theme)/\(size)") {
                    for context in Self.contexts {
                        for suffix in ["png", "svg"] {
                            let path = "\(base)/\(theme)/\(size)/\(context)/\(name).\(suffix)"
                            if isFile(path) { return path }
                        }
                    }
                }
            }
        }
        for suffix in ["png", "svg"] where isFile("/usr/share/pixmaps/\(name).\(suffix)") {
            return "/usr/share/pixmaps/\(name).\(suffix)"
        }
        return nil
    }

    private func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    private func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
