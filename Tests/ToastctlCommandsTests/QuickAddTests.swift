// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PropertyBased
import Testing

@testable import ToastctlCommands
import ToastKit
@testable import ToastCore

/// `QuickAdd` may decline any command line, but a command line it accepts
/// must mean exactly what it means to ArgumentParser.
@Suite("toastctl add's quick reader")
struct QuickAddTests {
    /// What ArgumentParser makes of a command line: nil when it is not a
    /// plain add (an error, help, --wait) or its fields are invalid.
    static func viaArgumentParser(_ arguments: [String]) -> QuickAdd? {
        guard let add = (try? Toastctl.parseAsRoot(arguments)) as? Toastctl.Add, !add.wait, add.timeout == nil,
            add.text.count == 1, add.text[0] != "-", let request = try? add.fields.values.addRequest(message: add.text[0])
        else { return nil }
        return QuickAdd(
            socket: add.client.socket, json: add.client.json, message: add.text[0], fields: add.fields.values, request: request
        )
    }

    @Test(arguments: [
        ["add", "Build finished"],
        ["add", "Build finished", "--role", "success"],
        ["add", "--role=failure", "--title", "CI", "x", "--json"],
        ["add", "x", "--socket", "/tmp/t.sock", "--duration", "2.5", "--alignment", "center", "--progress", "0.4"],
        ["add", "x", "--reuse-id", "build", "--scene", "ide", "--icon", "🍞", "--source", "make", "--cancellation", "always"],
        ["add", "x", "--action", "undo:Undo", "--action=open:Open", "--invalidation", "contextChanged", "--not-dismissible", "--close-button"],
        ["add", "--scene=ide", "x"],
    ])
    func readsCommonLinesLikeArgumentParser(arguments: [String]) throws {
        let quick = try #require(QuickAdd(arguments: arguments))
        #expect(quick == Self.viaArgumentParser(arguments))
    }

    @Test(arguments: [
        ["add"],
        ["list"],
        ["add", "x", "--wait"],
        ["add", "x", "--help"],
        ["add", "x", "-h"],
        ["add", "x", "y"],
        ["add", "--", "-x"],
        ["add", "x", "--role", "nope"],
        ["add", "x", "--role", "info", "--role", "info"],
        ["add", "x", "--title", "-dash"],
        ["add", "x", "--title"],
        ["add", "x", "--json=yes"],
        ["add", "x", "--colour", "red"],
        ["add", "x", "--action", "nolabel"],
    ])
    func declinesTheRest(arguments: [String]) {
        #expect(QuickAdd(arguments: arguments) == nil)
    }

    static let words = [
        "add", "x", "Build finished", "", "list", "-", "--", "-x", "--title", "--title=T", "--title=", "--role", "info",
        "--role=success", "bogus", "--duration", "2.5", "0", "short", "--duration=indefinite", "--alignment", "center",
        "--progress", "indeterminate", "--reuse-id", "r", "--scene", "--json", "--json=1", "--not-dismissible",
        "--close-button", "--action", "a:A", "--action=b:B", "--invalidation", "contextChanged", "--cancellation",
        "never", "--socket", "/tmp/s", "--source", "--wait", "--timeout", "3", "--help", "-h", "--icon", "=", "--=x",
    ]

    /// Random command lines from a vocabulary of options, values and
    /// mistakes: whenever the quick reader accepts one, ArgumentParser reads
    /// the same add from it.
    @Test func agreesWithArgumentParserOnRandomLines() async {
        let lines = Gen.int(in: 0..<Self.words.count).array(of: 0...7)
        await propertyCheck(count: 3000, input: lines) { picks in
            let arguments = ["add"] + picks.map { Self.words[$0] }
            if let quick = QuickAdd(arguments: arguments) {
                #expect(quick == Self.viaArgumentParser(arguments), "\(arguments)")
            }
        }
    }
}
