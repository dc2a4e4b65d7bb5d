import Foundation
import Testing
import ToastKit
import ToastCore

/// toast-overlay under a headless sway, read back in real pixels (grim's
/// screenshot of the output): the stacks where they belong, role colours,
/// a progress bar's fill, cards appearing and going with their toasts,
/// toastd restarting under it, and the compositor going away (issue #41).
@Suite("toast-overlay on a real compositor", .serialized)
struct OverlayTests {
    static let available = HeadlessDesktop.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/grim")

    /// A screenshot's pixels (grim writes PPM: "P6 w h 255\n" then RGB).
    struct Screen {
        let width: Int, height: Int
        let rgb: [UInt8]

        init?(ppm data: Data) {
            let bytes = [UInt8](data)
            var fields: [String] = []
            var index = 0
            while fields.count < 4, index < bytes.count {
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
                var field = ""
                while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A {
                    field.append(Character(Unicode.Scalar(bytes[index])))
                    index += 1
                }
                fields.append(field)
            }
            index += 1
            guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]),
                bytes.count - index >= width * height * 3
            else { return nil }
            (self.width, self.height) = (width, height)
            rgb = Array(bytes[index..<(index + width * height * 3)])
        }

        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let offset = (y * width + x) * 3
            return (Int(rgb[offset]), Int(rgb[offset + 1]), Int(rgb[offset + 2]))
        }

        /// Whether the pixel is near `color` (0xRRGGBB): the cards are 96% opaque.
        func near(_ x: Int, _ y: Int, _ color: UInt32, tolerance: Int = 24) -> Bool {
            let (r, g, b) = pixel(x, y)
            return abs(r - Int(color >> 16 & 0xFF)) <= tolerance && abs(g - Int(color >> 8 & 0xFF)) <= tolerance
                && abs(b - Int(color & 0xFF)) <= tolerance
        }

        /// The runs of card colour down the column `x`: one per card.
        func cards(atColumn x: Int) -> Int {
            let background = pixel(2, 2)
            var runs = 0
            var inside = false
            for y in 0..<height {
                let (r, g, b) = pixel(x, y)
                let card = abs(r - background.0) + abs(g - background.1) + abs(b - background.2) > 40
                if card && !inside { runs += 1 }
                inside = card
            }
            return runs
        }
    }

    static let colors: [String: UInt32] = ["success": 0x21_8C_21, "warning": 0xC2_7C_0E, "info": 0x1E_63_B4, "failure": 0xB3_26_1E]

    final class Rig {
        let desktop: HeadlessDesktop
        var toastd: pid_t
        var overlay: pid_t
        let binaries = DaemonFixture.binaryDirectory

        init() throws {
            desktop = try HeadlessDesktop()
            toastd = 0
            overlay = 0
            toastd = try startToastd()
            overlay = try desktop.spawn(binaries.appending(path: "toast-overlay").path, [], stderr: desktop.runtime + "/overlay.log")
            usleep(300_000)
        }

        func startToastd() throws -> pid_t {
            let pid = try desktop.spawn(binaries.appending(path: "toastd").path, ["--socket", desktop.runtime + "/toastd.sock", "--ephemeral"])
            for _ in 0..<300 where !SocketFileProbe.accepting(desktop.runtime + "/toastd.sock") { usleep(10_000) }
            return pid
        }

        @discardableResult
        func toastctl(_ arguments: String...) throws -> String {
            try desktop.run(binaries.appending(path: "toastctl").path, arguments).stdout
        }

        func screen() throws -> Screen {
            let path = desktop.runtime + "/shot.ppm"
            #expect(try desktop.run("/usr/bin/grim", ["-t", "ppm", path]).status == 0)
            return try #require(Screen(ppm: try Data(contentsOf: URL(filePath: path))))
        }

        /// The screen once `condition` holds (the overlay draws a moment after the event).
        func screen(until condition: (Screen) -> Bool) throws -> Screen {
            var last = try screen()
            for _ in 0..<100 where !condition(last) {
                usleep(30_000)
                last = try screen()
            }
            return last
        }
    }

    @Test(.enabled(if: available)) func stacksColoursProgressAndEnds() throws {
        let rig = try Rig()
        try rig.toastctl("add", "All 64 tests passed.", "--title", "CI", "--role", "success", "--duration", "indefinite")
        try rig.toastctl("add", "Disk almost full", "--role", "warning", "--duration", "indefinite")
        let failure = try rig.toastctl("add", "Upload failed", "--role", "failure", "--alignment", "bottom", "--duration", "indefinite")
        try rig.toastctl("add", "photos.tar", "--title", "Uploading", "--role", "info", "--alignment", "center", "--progress", "0.4")
        // Each stack is drawn once the compositor has configured its new
        // size, so the picture settles over a few frames: wait for it.
        let screen = try rig.screen { screen in
            screen.cards(atColumn: screen.width / 2) == 4 && screen.near(screen.width / 2, 24, Self.colors["success"]!)
                && screen.near(screen.width / 2, screen.height - 24, Self.colors["failure"]!)
        }
        let middle = screen.width / 2
        #expect(screen.cards(atColumn: middle) == 4, "one card per shown toast")
        // The top stack from the top edge, oldest first; the HUD in the middle; the bottom stack at the bottom edge.
        #expect(screen.near(middle, 24, Self.colors["success"]!), "\(screen.pixel(middle, 24))")
        let warning = (24..<screen.height / 3).first { screen.near(middle, $0, Self.colors["warning"]!) }
        #expect(warning != nil, "the newer top card under the older")
        #expect((screen.height / 3..<2 * screen.height / 3).contains { screen.near(middle, $0, Self.colors["info"]!) }, "the HUD in the middle")
        #expect(screen.near(middle, screen.height - 24, Self.colors["failure"]!), "\(screen.pixel(middle, screen.height - 24))")
        // The progress bar: the share of its track that is filled (white) is about 40%.
        let hud = (screen.height / 3..<2 * screen.height / 3).filter { screen.near(middle, $0, Self.colors["info"]!) }
        let barRow = (hud.first!...hud.last!).first { y in (0..<screen.width).contains { x in screen.pixel(x, y) == (255, 255, 255) } && screen.pixel(middle - 150, y) == (255, 255, 255) }
        let row = try #require(barRow, "a bar in the HUD")
        // The track: between the card's padding, what is not the card's own colour.
        let background = screen.pixel(2, 2)
        let card = (0..<screen.width).filter { x in
            let (r, g, b) = screen.pixel(x, row)
            return abs(r - background.0) + abs(g - background.1) + abs(b - background.2) > 40
        }
        let track = (card.first!...card.last!).filter { !screen.near($0, row, Self.colors["info"]!) }
        let filled = track.filter { screen.pixel($0, row) == (255, 255, 255) }
        let share = Double(filled.count) / Double(track.count)
        #expect(abs(share - 0.4) < 0.05, "filled \(filled.count) of \(track.count)")
        // A card goes when its toast ends.
        try rig.toastctl("dismiss", failure)
        let after = try rig.screen { !$0.near($0.width / 2, $0.height - 24, Self.colors["failure"]!) }
        #expect(!after.near(middle, after.height - 24, Self.colors["failure"]!))
        #expect(after.cards(atColumn: middle) == 3)
    }

    @Test(.enabled(if: available)) func hostileTextDrawsBounded() throws {
        let rig = try Rig()
        // The longest word a toast can carry (a message is at most 4 KiB).
        let word = String(repeating: "W", count: 3_900)
        try rig.toastctl("add", "<b>not bold</b> \u{1B}[31m \u{202E}reversed " + word, "--title", "<i>x</i>", "--role", "failure", "--duration", "indefinite")
        let screen = try rig.screen { $0.cards(atColumn: $0.width / 2) == 1 }
        #expect(screen.cards(atColumn: screen.width / 2) == 1)
        // The card keeps its width (400 px), whatever the word.
        let row = (0..<screen.height / 3).first { screen.near(screen.width / 2, $0, Self.colors["failure"]!) }!
        let wide = (0..<screen.width).filter { screen.near($0, row, Self.colors["failure"]!) }
        #expect(wide.count <= 402, "\(wide.count)")
        // And its height bounded: four lines of message at most.
        let tall = (0..<screen.height).filter { screen.near(screen.width / 2 - 190, $0, Self.colors["failure"]!) }
        #expect(tall.count < 160, "\(tall.count)")
    }

    @Test(.enabled(if: available)) func itResumesWhenToastdRestartsAndExitsWhenTheCompositorGoes() throws {
        let rig = try Rig()
        try rig.toastctl("add", "before", "--role", "success", "--duration", "indefinite")
        _ = try rig.screen { $0.cards(atColumn: $0.width / 2) == 1 }
        rig.desktop.stop(rig.toastd)
        rig.toastd = try rig.startToastd()
        // A new instance: the overlay resyncs from its snapshot (the old card goes) and shows the new toast.
        try rig.toastctl("add", "after", "--role", "warning", "--duration", "indefinite")
        let screen = try rig.screen { $0.near($0.width / 2, 24, Self.colors["warning"]!) && $0.cards(atColumn: $0.width / 2) == 1 }
        #expect(screen.near(screen.width / 2, 24, Self.colors["warning"]!))
        #expect(screen.cards(atColumn: screen.width / 2) == 1)
        // The compositor goes away: the overlay exits with an error.
        rig.desktop.stop(rig.desktop.sway)
        var status: Int32 = 0
        var exited = false
        for _ in 0..<300 where !exited {
            exited = waitpid(rig.overlay, &status, WNOHANG) == rig.overlay
            if !exited { usleep(10_000) }
        }
        #expect(exited)
        #expect(exited && (status >> 8) & 0xFF == 1, "exit status \(status)")
    }
}
