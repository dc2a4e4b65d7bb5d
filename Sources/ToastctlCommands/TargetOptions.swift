// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import ToastProtocol
import ToastKit

#if canImport(Glibc)
import Glibc
#endif

/// `ID`, `--reuse-id R [--scene S]`, or (where a command allows it)
/// `--latest`: the toast presented last, for keybindings that know no id.
struct TargetOptions: ParsableArguments {
    @Argument(help: "The toast's id.") var id: UInt64?
    @Option(name: .customLong("reuse-id"), help: "Name the toast by its reuse id instead.") var reuseID: String?
    @Option(help: "The scene of --reuse-id.") var scene: String?

    func validate() throws {
        if (id == nil) == (reuseID == nil) { throw ValidationError("name the toast by its ID or by --reuse-id, not both") }
        if scene != nil && reuseID == nil { throw ValidationError("--scene goes with --reuse-id") }
    }

    /// The toast named (`validate` made sure there is exactly one name).
    var target: ToastTarget {
        if let reuseID { return .reuseID(reuseID, scene: scene ?? Toast.defaultScene) }
        return .id(ToastID(id ?? 0))
    }
}

/// The target of dismiss and invoke: an id, a reuse id, or `--latest`.
struct LatestTargetOptions: ParsableArguments {
    @Option(name: .customLong("reuse-id"), help: "Name the toast by its reuse id instead of its ID.") var reuseID: String?
    @Option(help: "The scene of --reuse-id.") var scene: String?
    @Flag(help: "The toast shown last (the newest on screen), for keybindings.") var latest = false

    func validate(id: UInt64?) throws {
        let given = [id != nil, reuseID != nil, latest].filter { $0 }.count
        if given != 1 { throw ValidationError("name the toast by its ID, by --reuse-id, or with --latest: one of them") }
        if scene != nil && reuseID == nil { throw ValidationError("--scene goes with --reuse-id") }
    }

    /// The toast named; `--latest` asks toastd which toast that is, and
    /// returns it too. `having`: only toasts with this action (or with any
    /// action, for "").
    func target(id: UInt64?, client: ClientOptions, having action: String? = nil) throws -> (ToastTarget, latest: ToastRecord?) {
        if let reuseID { return (.reuseID(reuseID, scene: scene ?? Toast.defaultScene), nil) }
        guard latest else { return (.id(ToastID(id ?? 0)), nil) }
        let result = try client.listAll(EventFilter())
        guard let snapshot = try? WireDecoder.decodeSnapshot(result), let newest = Self.latest(in: snapshot, having: action) else {
            printError("toastctl: no toast is shown" + (action.map { $0.isEmpty ? " with an action" : " with action '\($0)'" } ?? ""))
            throw ExitCode(1)
        }
        return (.id(newest.id), newest)
    }

    /// The shown toast presented last (highest `presentedAt`, then id).
    static func latest(in snapshot: SchedulerSnapshot, having action: String?) -> ToastRecord? {
        let shown = snapshot.toasts.filter { record in
            guard record.state == .shown else { return false }
            guard let action else { return true }
            let actions = record.toast.actions
            return !actions.isEmpty && (action.isEmpty || actions.contains { $0.id == action })
        }
        return shown.max { ($0.presentedAt ?? 0, $0.id) < ($1.presentedAt ?? 0, $1.id) }
    }
}
