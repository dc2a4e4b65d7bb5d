// SPDX-License-Identifier: Apache-2.0
import ToastProtocol

/// A toast this session showed: update it, end it, or wait for its outcome.
public struct ToastHandle: Sendable {
    let session: ToastSession
    /// The toast as toastd answered the add (its id, state, repeat count).
    public let record: ToastRecord
    /// The add found the same toast live and updated it in place (×N).
    public let deduped: Bool

    public var id: ToastID { record.id }

    /// Changes fields of the toast in place.
    ///
    /// ```swift
    /// try await toast.update(ToastPatch(message: "Copied 40 of 80 files", progress: .fraction(0.5)))
    /// ```
    @discardableResult
    public func update(_ patch: ToastPatch) async throws(ToastKitError) -> ToastRecord {
        let result = try await session.perform(.command(.update(.id(id), patch)))
        guard let record = try? WireDecoder.decodeUpdateResult(result) else {
            throw ToastKitError(code: nil, message: "toastd's reply to update carried no toast")
        }
        return record
    }

    /// Moves a progress bar (0 to 1).
    ///
    /// ```swift
    /// try await toast.update(progress: 0.5)
    /// ```
    @discardableResult
    public func update(progress: Double) async throws(ToastKitError) -> ToastRecord {
        try await update(ToastPatch(progress: .fraction(progress)))
    }

    /// Ends the toast as its program (`remove`).
    ///
    /// ```swift
    /// try await toast.remove()
    /// ```
    public func remove() async throws(ToastKitError) {
        try await session.perform(.command(.remove(.id(id))))
    }

    /// How the toast ended: the action invoked, or the reason it went away.
    /// Waits until it ends.
    ///
    /// ```swift
    /// if case .action("undo") = await toast.outcome { restore() }
    /// ```
    public var outcome: ToastOutcome {
        get async { await session.outcome(of: id) }
    }
}
