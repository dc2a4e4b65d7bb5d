import Foundation
import ToastClient
import ToastCore

/// A real toastd on a socket in a fresh temporary directory.
final class DaemonFixture: @unchecked Sendable {
    static let binaries = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binaryDirectory: URL {
        // swift test runs .build/<triple>/debug/<name>.xctest; the products sit beside it.
        let beside = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        return FileManager.default.fileExists(atPath: beside.appending(path: "toastd").path) ? beside : binaries
    }

    let directory: URL
    let socket: String
    let process = Process()
    let log: Pipe = Pipe()

    init(arguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "toastd-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socket = directory.appending(path: "toastd.sock").path
        process.executableURL = Self.binaryDirectory.appending(path: "toastd")
        process.arguments = ["--socket", socket, "--log-level", "warning"] + arguments
        process.standardError = log
        try process.run()
        for _ in 0..<200 where !SocketFileProbe.accepting(socket) {
            usleep(10_000)
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    func connect() throws -> ToastConnection { try ToastConnection(path: socket) }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the real toastctl against this daemon.
    func toastctl(_ arguments: String..., socket: String? = nil) throws -> Outcome {
        try Self.toastctl(arguments, socket: socket ?? self.socket)
    }

    static func toastctl(_ arguments: [String], socket: String) throws -> Outcome {
        try run(binaryDirectory.appending(path: "toastctl").path, arguments, environment: ["TOASTD_SOCKET": socket])
    }

    /// Runs a program to its end and collects its output.
    static func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    /// A subscriber connection that has read its reply and snapshot.
    func subscribe() throws -> ToastConnection {
        let connection = try connect()
        _ = try connection.request(["op": "subscribe"], timeout: 5_000)
        let snapshot = try connection.readLine(timeout: 5_000)
        precondition(snapshot["event"] == "snapshot")
        return connection
    }

    /// The daemon's resident memory, in KiB.
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

enum SocketFileProbe {
    static func accepting(_ path: String) -> Bool {
        (try? ToastConnection(path: path)) != nil
    }
}
