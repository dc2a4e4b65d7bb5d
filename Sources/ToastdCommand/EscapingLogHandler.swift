// SPDX-License-Identifier: Apache-2.0
import CommandLineSupport
import Logging

/// toastd's log on stderr, where a terminal may read it (`toastd &`):
/// every message and metadata value goes through `Terminal.sanitize`, so
/// that a client-chosen source or a D-Bus app name can neither send escape
/// sequences (a window title, OSC 52 into the clipboard) nor forge a line
/// with a newline (issue #38). The journal keeps the exact bytes in its
/// fields (`JournalLogHandler`); this is only for text a terminal shows.
struct EscapingLogHandler: LogHandler {
    private var inner: StreamLogHandler
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) {
        inner = StreamLogHandler.standardError(label: Terminal.sanitize(label))
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        metadataProvider?.get().forEach { merged[$0] = $1 }
        event.metadata?.forEach { merged[$0] = $1 }
        var safe = event
        safe.message = "\(Terminal.sanitize(event.message.description))"
        safe.metadata = Dictionary(uniqueKeysWithValues: merged.map { (Terminal.sanitize($0.key), Self.escaped($0.value)) })
        inner.log(event: safe)
    }

    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(Terminal.sanitize(text))
        case .stringConvertible(let value): .string(Terminal.sanitize(value.description))
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values): .dictionary(Dictionary(uniqueKeysWithValues: values.map { (Terminal.sanitize($0.key), escaped($0.value)) }))
        }
    }
}
