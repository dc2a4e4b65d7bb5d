// SPDX-License-Identifier: Apache-2.0

/// toastd's command line read without ArgumentParser, when it is plain.
///
/// A socket-activated toastd starts because a client is waiting on its
/// first `toastctl add`. ArgumentParser reads toastd's twenty flags through
/// reflection: building the argument set looks up protocol conformances
/// over the whole binary, about 3 ms of the 6.6 ms `toastd --version` took
/// (docs/BENCHMARKS.md, "At rest"). The systemd unit's command line
/// (`toastd`, `toastd --freedesktop`) and a script's (`--socket S
/// --state-dir D`) need none of that. This reader takes every flag in its
/// `--name value` or `--name=value` form, once each; for anything else
/// (`--help`, `--version`, `--check-config`, a word that is not a flag, a
/// repeated flag, a value starting with `-` or that does not read, a value
/// out of its range) it returns nil and ArgumentParser takes over, so every
/// message and exit status stays ArgumentParser's. A test checks that,
/// wherever this reader accepts a command line, ArgumentParser reads the
/// same arguments from it.
extension ToastdArguments {
    public init?(quick words: [String]) {
        self.init()
        // An array, not a Set: a Set would look up Substring's Hashable
        // conformance at start, a scan of every conformance in the binary.
        var seen: [Substring] = []
        var words = words.makeIterator()
        while let word = words.next() {
            guard word.hasPrefix("--") else { return nil }
            var name = word.dropFirst(2)
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            guard !name.isEmpty, !seen.contains(name) else { return nil }
            seen.append(name)
            switch name {
            case "ephemeral", "deny-root":
                guard value == nil else { return nil }
                if name == "ephemeral" { ephemeral = true } else { denyRoot = true }
                continue
            case "freedesktop" where value == nil:
                freedesktop = .own
                continue
            default:
                break
            }
            if value == nil { value = words.next() }
            guard let value, !value.isEmpty, !value.hasPrefix("-"), set(name, value) else { return nil }
        }
        guard (try? validate()) != nil else { return nil }
    }

    /// Sets the value option `name` from `value`; false for an unknown name
    /// or a value that does not read as the option's type.
    private mutating func set(_ name: Substring, _ value: String) -> Bool {
        func number(_ field: inout Int?) -> Bool {
            guard let number = Int(value) else { return false }
            field = number
            return true
        }
        func number(_ field: inout Int) -> Bool {
            guard let number = Int(value) else { return false }
            field = number
            return true
        }
        switch name {
        case "socket": socket = value
        case "config": config = value
        case "state-dir": stateDir = value
        case "log-level": logLevel = value
        case "max-visible-top": return number(&maxVisibleTop)
        case "max-visible-center": return number(&maxVisibleCenter)
        case "max-visible-bottom": return number(&maxVisibleBottom)
        case "max-toasts": return number(&maxToasts)
        case "max-toasts-per-source": return number(&maxToastsPerSource)
        case "history-size": return number(&historySize)
        case "max-line-bytes": return number(&maxLineBytes)
        case "max-connections": return number(&maxConnections)
        case "subscriber-buffer-bytes": return number(&subscriberBufferBytes)
        case "resume-events": return number(&resumeEvents)
        case "subscriber-lag-timeout":
            guard let seconds = Double(value) else { return false }
            subscriberLagTimeout = seconds
        case "freedesktop":
            guard let mode = FreedesktopMode(rawValue: value) else { return false }
            freedesktop = mode
        case "log-target":
            guard let target = LogTarget(rawValue: value) else { return false }
            logTarget = target
        default:
            return false
        }
        return true
    }
}
