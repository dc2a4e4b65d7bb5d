// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log backend that writes structured journal entries through
/// sd_journal_sendv(3): MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE,
/// CODE_LINE, CODE_FUNC, and each metadata key as a field of its own,
/// prefixed: `toast_id` becomes `TOASTD_TOAST_ID`, so that
/// `journalctl TOASTD_ROLE=failure` finds the entries about failure toasts.
///
/// When journald is not there (its socket is gone) a line goes to stderr
/// instead of being lost.
public struct JournalLogHandler: LogHandler {
    public static let journalSocket = "/run/systemd/journal/socket"

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let identifier: String
    private let fieldPrefix: String
    private let fallback: any LogHandler

    /// `fallback` takes an entry the journal refused (by default, stderr as
    /// swift-log writes it).
    public init(label: String, identifier: String, fieldPrefix: String, fallback: (any LogHandler)? = nil) {
        self.identifier = identifier
        self.fieldPrefix = fieldPrefix
        self.fallback = fallback ?? StreamLogHandler.standardError(label: label)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether stderr is the journal's stream (JOURNAL_STREAM names its device and inode), as under systemd.
    public static func stderrIsJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    public static var journaldIsRunning: Bool { access(journalSocket, W_OK) == 0 }

    public func log(event: LogEvent) {
        var merged = metadata
        metadataProvider?.get().forEach { merged[$0] = $1 }
        event.metadata?.forEach { merged[$0] = $1 }
        var fields: [String] = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            fields.append("\(fieldPrefix)\(Self.fieldName(key))=\(value)")
        }
        guard Self.journaldIsRunning, Self.send(fields) else {
            fallback.log(event: event)
            return
        }
    }

    /// Sends one entry; false if the journal refused it.
    static func send(_ fields: [String]) -> Bool {
        let buffers = fields.map { Array($0.utf8) }
        return buffers.withUnsafeIOVectors { vectors in
            sd_journal_sendv(vectors.baseAddress, Int32(vectors.count)) >= 0
        }
    }

    /// syslog priorities: 7 debug ... 2 critical.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A journal field name: uppercase letters, digits and underscores.
    static func fieldName(_ key: String) -> String {
        String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
    }
}

extension Array where Element == [UInt8] {
    /// Calls `body` with iovecs pointing at each element's bytes.
    fileprivate func withUnsafeIOVectors<R>(_ body: (UnsafeBufferPointer<iovec>) -> R) -> R {
        var storage = self
        return storage.withUnsafeMutableBufferPointer { buffers in
            var vectors: [iovec] = []
            vectors.reserveCapacity(buffers.count)
            func collect(_ index: Int) -> R {
                guard index < buffers.count else {
                    return vectors.withUnsafeBufferPointer(body)
                }
                return buffers[index].withUnsafeMutableBytes { bytes in
                    vectors.append(iovec(iov_base: bytes.baseAddress, iov_len: bytes.count))
                    return collect(index + 1)
                }
            }
            return collect(0)
        }
    }
}
