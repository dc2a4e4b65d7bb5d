// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastKit
import ToastCore
import ToastSystem

/// toast-overlay on a real display, read back in real pixels: under a
/// headless sway (grim's screenshot) and under Xvfb (ImageMagick's `import`
/// of the root window), with real clicks (xdotool on X11; on Wayland a
/// virtual pointer, Tests/Tools/wayland-click). The stacks where
/// they belong, role colours, a progress bar's fill, cards appearing and
/// going with their toasts, hostile text and images, the style file,
/// transitions, output scale, toastd restarting under it, and the display
/// going away (issue #41).
@Suite("toast-overlay on a real display", .serialized)
struct OverlayTests {
    static func available(_ kind: HeadlessDesktop.Kind) -> Bool {
        HeadlessDesktop.available(kind) && (kind == .x11 || FileManager.default.isExecutableFile(atPath: "/usr/bin/grim"))
    }
    static let wayland = available(.wayland)
    static let x11 = available(.x11)
    static let kinds = HeadlessDesktop.Kind.allCases.filter { available($0) }

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

        /// The columns of row `y` near `color`.
        func columns(_ y: Int, near color: UInt32, tolerance: Int = 24) -> [Int] {
            (0..<width).filter { near($0, y, color, tolerance: tolerance) }
        }

        /// The rows of column `x` near `color`.
        func rows(_ x: Int, near color: UInt32, tolerance: Int = 24) -> [Int] {
            (0..<height).filter { near(x, $0, color, tolerance: tolerance) }
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
    /// Pixel tests draw without transitions unless they test them: a screenshot is then the settled picture.
    static let still = "[overlay]\ntransition = \"none\"\n"

    final class Rig {
        let desktop: HeadlessDesktop
        var toastd: pid_t
        var overlay: pid_t
        let binaries = DaemonFixture.binaryDirectory
        var config: String { desktop.runtime + "/config.toml" }

        init(_ kind: HeadlessDesktop.Kind, style: String = OverlayTests.still, overlayEnvironment: [String: String] = [:]) throws {
            desktop = try HeadlessDesktop(kind)
            toastd = 0
            overlay = 0
            try write(style: style)
            toastd = try startToastd()
            overlay = try desktop.spawn(
                binaries.appending(path: "toast-overlay").path, ["--config", config], environment: overlayEnvironment,
                stderr: desktop.runtime + "/overlay.log")
            usleep(300_000)
        }

        /// Writes the configuration file (the overlay reads it again when it changes).
        func write(style: String) throws {
            let temporary = config + ".new"
            try style.write(toFile: temporary, atomically: false, encoding: .utf8)
            chown(temporary, desktop.uid, desktop.gid)
            rename(temporary, config)
        }

        func startToastd() throws -> pid_t {
            let pid = try desktop.spawn(
                binaries.appending(path: "toastd").path, ["--socket", desktop.runtime + "/toastd.sock", "--ephemeral", "--config", config])
            SocketFileProbe.waitUntilAccepting(desktop.runtime + "/toastd.sock")
            return pid
        }

        @discardableResult
        func toastctl(_ arguments: String...) throws -> String {
            try desktop.run(binaries.appending(path: "toastctl").path, arguments).stdout
        }

        func screen(output: String? = nil) throws -> Screen {
            let path = desktop.runtime + "/shot.ppm"
            unlink(path)
            if desktop.kind == .x11 {
                #expect(try desktop.run("/usr/bin/import", ["-silent", "-window", "root", "-depth", "8", "ppm:" + path]).status == 0)
            } else {
                #expect(try desktop.run("/usr/bin/grim", ["-t", "ppm"] + (output.map { ["-o", $0] } ?? []) + [path]).status == 0)
            }
            return try #require(Screen(ppm: try Data(contentsOf: URL(filePath: path))))
        }

        /// The screen once `condition` holds (the overlay draws a moment after the event).
        func screen(output: String? = nil, until condition: (Screen) -> Bool) throws -> Screen {
            var last = try screen(output: output)
            for _ in 0..<300 where !condition(last) {
                usleep(30_000)
                last = try screen(output: output)
            }
            return last
        }

        /// A left click at (x, y) of the screen: xdotool on X11; on Wayland a
        /// virtual pointer of sway's seat (wayland-click), whose absolute
        /// position is a fraction of the layout a screenshot shows whole.
        func click(_ x: Int, _ y: Int) throws {
            if desktop.kind == .x11 {
                #expect(try desktop.run("/usr/bin/xdotool", ["mousemove", "\(x)", "\(y)", "click", "1"]).status == 0)
                return
            }
            let layout = try screen()
            let clicked = try desktop.run(binaries.appending(path: "wayland-click").path, ["\(x)", "\(y)", "\(layout.width)", "\(layout.height)"])
            #expect(clicked.status == 0, "\(clicked.stderr)")
        }

        var overlayAlive: Bool { waitpid(overlay, nil, WNOHANG) == 0 }
    }

    @Test(.enabled(if: !kinds.isEmpty), arguments: kinds)
    func stacksColoursProgressAndEnds(_ kind: HeadlessDesktop.Kind) throws {
        let rig = try Rig(kind)
        try rig.toastctl("add", "All 64 tests passed.", "--title", "CI", "--role", "success", "--duration", "indefinite")
        try rig.toastctl("add", "Disk almost full", "--role", "warning", "--duration", "indefinite")
        let failure = try rig.toastctl("add", "Upload failed", "--role", "failure", "--alignment", "bottom", "--duration", "indefinite")
        try rig.toastctl("add", "photos.tar", "--title", "Uploading", "--role", "info", "--alignment", "center", "--progress", "0.4")
        // Each stack is drawn once the compositor has configured its new
        // size, so the picture settles over a few frames: wait for it.
        let screen = try rig.screen { screen in
            screen.cards(atColumn: screen.width / 2) == 4 && screen.near(screen.width / 2, 24, Self.colors["success"]!)
                && screen.near(screen.width / 2, screen.height - 24, Self.colors["failure"]!)
                && screen.rows(screen.width / 2, near: Self.colors["info"]!).count > 20
        }
        let middle = screen.width / 2
        #expect(screen.cards(atColumn: middle) == 4, "one card per shown toast")
        // The top stack from the top edge, oldest first; the HUD in the middle; the bottom stack at the bottom edge.
        #expect(screen.near(middle, 24, Self.colors["success"]!), "\(screen.pixel(middle, 24))")
        let warning = (24..<screen.height / 3).first { screen.near(middle, $0, Self.colors["warning"]!) }
        #expect(warning != nil, "the newer top card under the older")
        #expect((screen.height / 3..<2 * screen.height / 3).contains { screen.near(middle, $0, Self.colors["info"]!) }, "the HUD in the middle")
        #expect(screen.near(middle, screen.height - 24, Self.colors["failure"]!), "\(screen.pixel(middle, screen.height - 24))")
        // Centred by default: the card's colour spans the middle 400 px.
        let top = screen.columns(24, near: Self.colors["success"]!)
        #expect(abs((top.first ?? 0) - (screen.width - 400) / 2) <= 2 && top.count <= 402, "\(top.first ?? -1)...\(top.last ?? -1)")
        // The progress bar: the share of its track that is filled (white) is about 40%.
        let hud = (screen.height / 3..<2 * screen.height / 3).filter { screen.near(middle, $0, Self.colors["info"]!) }
        let barRow = (hud.first!...hud.last!).first { y in
            (0..<screen.width).contains { x in screen.pixel(x, y) == (255, 255, 255) } && screen.pixel(middle - 100, y) == (255, 255, 255)
        }
        let row = try #require(barRow, "a bar in the HUD")
        // The track: right of the card's icon column, what is not the card's own colour.
        let card = screen.columns(row - 4, near: Self.colors["info"]!)
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

    @Test(.enabled(if: !kinds.isEmpty), arguments: kinds)
    func hostileTextAndImagesDrawBounded(_ kind: HeadlessDesktop.Kind) throws {
        let rig = try Rig(kind)
        // The longest word a toast can carry (a message is at most 4 KiB).
        let word = String(repeating: "W", count: 3_900)
        try rig.toastctl("add", "<b>not bold</b> \u{1B}[31m \u{202E}reversed " + word, "--title", "<i>x</i>", "--role", "failure", "--duration", "indefinite")
        let screen = try rig.screen { $0.cards(atColumn: $0.width / 2) == 1 }
        #expect(screen.cards(atColumn: screen.width / 2) == 1)
        // The card keeps its width (400 px), whatever the word.
        let row = (0..<screen.height / 3).first { screen.near(screen.width / 2, $0, Self.colors["failure"]!) }!
        #expect(screen.columns(row, near: Self.colors["failure"]!).count <= 402)
        // And its height bounded: six lines of message at most.
        let tall = screen.rows(screen.width / 2 - 190, near: Self.colors["failure"]!)
        #expect(tall.count < 200, "\(tall.count)")
        // A 4,000 × 4,000 image, markup that tries Pango's own tags, a FIFO as an image: drawn (or left out), bounded.
        let big = rig.desktop.runtime + "/big.png"
        #expect(try DaemonFixture.run("/usr/bin/convert", ["-size", "4000x4000", "xc:#00ff00", big]).status == 0)
        chmod(big, 0o644)
        let fifo = rig.desktop.runtime + "/fifo.png"
        mkfifo(fifo, 0o644)
        chown(fifo, rig.desktop.uid, rig.desktop.gid)
        let markup = #"<span size='900000' foreground='red'>huge</span> <b>bold"#
        for (alignment, image) in [("center", big), ("bottom", fifo)] {
            let line = #"{"op":"add","toast":{"message":"hostile \#(alignment)","markup":"\#(markup)","image":{"path":"\#(image)"},"alignment":"\#(alignment)","role":"info","duration":"indefinite"}}"#
            #expect(try rig.toastctl("raw", line).contains("\"ok\":true"))
        }
        let after = try rig.screen { $0.cards(atColumn: $0.width / 2) == 3 }
        #expect(after.cards(atColumn: after.width / 2) == 3)
        #expect(rig.overlayAlive)
        let hud = after.rows(after.width / 2 - 190, near: Self.colors["info"]!).filter { $0 > after.height / 4 && $0 < 3 * after.height / 4 }
        #expect(!hud.isEmpty && hud.count < 120, "the HUD is a card's height, not the image's: \(hud.count)")
        // The image, scaled into the icon's 32 px: green inside the card's left column, nowhere wide.
        let green = (0..<after.height).flatMap { y in (0..<after.width).filter { x in after.near(x, y, 0x00_FF_00, tolerance: 40) }.map { ($0, y) } }
        #expect(!green.isEmpty && green.count <= 34 * 34, "\(green.count) green pixels")
    }

    @Test(.enabled(if: !kinds.isEmpty), arguments: kinds)
    func theStyleFileIsFollowed(_ kind: HeadlessDesktop.Kind) throws {
        let rig = try Rig(kind, style: Self.still + "position = \"left\"\nmargin = [30, 20]\n")
        try rig.toastctl("add", "Saved", "--role", "success", "--duration", "indefinite")
        let left = try rig.screen { !$0.columns(30, near: Self.colors["success"]!).isEmpty }
        let columns = left.columns(30, near: Self.colors["success"]!)
        #expect(abs((columns.first ?? -1) - 30) <= 1, "the left margin: \(columns.first ?? -1)")
        // Edited and reloaded: to the right, in a colour of the user's.
        try rig.write(style: Self.still + "position = \"right\"\n[overlay.colors]\nsuccess = \"#6a1b9a\"\n")
        try rig.toastctl("reload")
        let right = try rig.screen { !$0.columns(30, near: 0x6A_1B_9A).isEmpty }
        let moved = right.columns(30, near: 0x6A_1B_9A)
        #expect(abs((moved.last ?? -1) - (right.width - 1 - 16)) <= 1, "the right margin: \(moved.last ?? -1)")
        #expect(right.columns(30, near: Self.colors["success"]!).isEmpty)
        // A broken file keeps the style in use, and says why.
        try rig.write(style: "[overlay]\nwidth = \"wide\"\n")
        usleep(300_000)
        #expect(!(try rig.screen()).columns(30, near: 0x6A_1B_9A).isEmpty)
        let log = (try? String(contentsOfFile: rig.desktop.runtime + "/overlay.log", encoding: .utf8)) ?? ""
        #expect(log.contains("overlay.width"), "\(log)")
    }

    @Test(.enabled(if: !kinds.isEmpty), arguments: kinds)
    func clicksInvokeDismissAndSayWhenTheyCannot(_ kind: HeadlessDesktop.Kind) throws {
        let rig = try Rig(kind)
        let binaries = rig.binaries
        func waiting(_ arguments: [String]) throws -> (pid: pid_t, output: String) {
            let output = rig.desktop.runtime + "/wait-\(arguments[0].count).out"
            let pid = try rig.desktop.spawn("/bin/sh", ["-c", "exec \"$0\" \"$@\" >\(output)", binaries.appending(path: "toastctl").path] + arguments)
            return (pid, output)
        }
        // A waiting toastctl whose click never came (the overlay gone) is
        // stopped after 10 s: the test fails instead of hanging.
        func finished(_ wait: (pid: pid_t, output: String)) -> String {
            for _ in 0..<1_000 where waitpid(wait.pid, nil, WNOHANG) == 0 { usleep(10_000) }
            kill(wait.pid, SIGKILL)
            DaemonFixture.wait(wait.pid)
            return ((try? String(contentsOfFile: wait.output, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // An action button: the waiting `toastctl add --wait` prints its action.
        let delete = try waiting(["add", "Delete the originals?", "--role", "warning", "--action", "delete:Delete", "--action", "keep:Keep", "--duration", "indefinite", "--wait"])
        // The buttons: a lighter shade of the card's colour, side by side in one row.
        let button: UInt32 = 0xCF_99_43
        let screen = try rig.screen { screen in (0..<screen.height / 3).contains { screen.columns($0, near: button, tolerance: 12).count > 100 } }
        let row = try #require((0..<screen.height / 3).first { screen.columns($0, near: button, tolerance: 12).count > 100 }.map { $0 + 6 })
        let shaded = screen.columns(row, near: button, tolerance: 12)
        let second = try #require(shaded.indices.dropFirst().first { shaded[$0] - shaded[$0 - 1] > 1 }.map { shaded[$0] })
        try rig.click(second + 20, row)
        #expect(finished(delete) == "keep")
        // A body click invokes `default`.
        let open = try waiting(["add", "Report ready", "--role", "info", "--action", "default:Open", "--duration", "indefinite", "--wait"])
        let card = try rig.screen { !$0.columns(30, near: Self.colors["info"]!).isEmpty }
        let x = try #require(card.columns(30, near: Self.colors["info"]!).first)
        try rig.click(x + 200, 30)
        #expect(finished(open) == "default")
        // The close button dismisses.
        let closing = try rig.toastctl("add", "Close me", "--role", "success", "--close-button", "--duration", "indefinite")
        let closable = try rig.screen { !$0.columns(30, near: Self.colors["success"]!).isEmpty }
        let edge = try #require(closable.columns(30, near: Self.colors["success"]!).first)
        let top = try #require(closable.rows(edge + 5, near: Self.colors["success"]!).first)
        try rig.click(edge + 381, top + 21)
        var listed = try rig.toastctl("list")
        for _ in 0..<500 where listed.contains(closing) {
            usleep(20_000)
            listed = try rig.toastctl("list")
        }
        #expect(!listed.contains("Close me"))
        // A toast that cannot be dismissed stays, and its card says so (it grows a line).
        try rig.toastctl("add", "Sticky", "--role", "failure", "--not-dismissible", "--duration", "indefinite")
        let sticky = try rig.screen { !$0.columns(30, near: Self.colors["failure"]!).isEmpty }
        let left = try #require(sticky.columns(30, near: Self.colors["failure"]!).first)
        let before = sticky.rows(left + 5, near: Self.colors["failure"]!).count
        try rig.click(left + 200, 30)
        let noted = try rig.screen { $0.rows(left + 5, near: Self.colors["failure"]!).count > before + 8 }
        #expect(noted.rows(left + 5, near: Self.colors["failure"]!).count > before + 8, "the notice line")
        #expect(try rig.toastctl("list").contains("Sticky"))
        // Every pointer event came to a listener: libwayland aborts a client at
        // an event it has no function for (a version 5 seat's `frame` did).
        #expect(rig.overlayAlive)
    }

    @Test(.enabled(if: wayland))
    func cardsFadeInAndFollowTheOutputScale() throws {
        let rig = try Rig(.wayland, style: "[overlay]\ntransition = \"fade\"\ntransition_ms = 2000\n")
        try rig.toastctl("add", "Fading in", "--role", "failure", "--duration", "indefinite")
        // Half-way through a 2 s fade the card is a blend of its colour and the background.
        let early = try rig.screen { screen in
            let (r, _, _) = screen.pixel(screen.width / 2, 24)
            return r > screen.pixel(2, 2).0 + 10
        }
        let (r, _, _) = early.pixel(early.width / 2, 24)
        #expect(r < 0xB3 - 10, "part-way: \(early.pixel(early.width / 2, 24))")
        let settled = try rig.screen { $0.near($0.width / 2, 24, Self.colors["failure"]!) }
        #expect(settled.near(settled.width / 2, 24, Self.colors["failure"]!))
        // At scale 2 the card is drawn with twice the pixels: 800 wide.
        let sockets = try FileManager.default.contentsOfDirectory(atPath: rig.desktop.runtime).filter { $0.hasPrefix("sway-ipc") }
        let ipc = try #require(sockets.first.map { rig.desktop.runtime + "/" + $0 })
        #expect(try rig.desktop.run("/usr/bin/swaymsg", ["-s", ipc, "output", "*", "scale", "2"]).status == 0)
        // Until the overlay redraws at the new scale, sway stretches its 400 px
        // buffer (blurred edges make it about 812 wide): wait for the crisp 800.
        let scaled = try rig.screen { abs($0.columns(60, near: Self.colors["failure"]!).count - 800) <= 4 }
        #expect(abs(scaled.columns(60, near: Self.colors["failure"]!).count - 800) <= 4)
    }

    @Test(.enabled(if: wayland))
    func aNamedOutput() throws {
        let rig = try Rig(.wayland)
        let sockets = try FileManager.default.contentsOfDirectory(atPath: rig.desktop.runtime).filter { $0.hasPrefix("sway-ipc") }
        let ipc = try #require(sockets.first.map { rig.desktop.runtime + "/" + $0 })
        #expect(try rig.desktop.run("/usr/bin/swaymsg", ["-s", ipc, "create_output"]).status == 0)
        let outputs = try rig.desktop.run("/usr/bin/swaymsg", ["-s", ipc, "-t", "get_outputs", "-r"]).stdout
        #expect(outputs.contains("HEADLESS-2"), "\(outputs)")
        try rig.write(style: Self.still + "output = \"HEADLESS-2\"\n")
        usleep(200_000)
        try rig.toastctl("add", "On the second screen", "--role", "success", "--duration", "indefinite")
        let second = try rig.screen(output: "HEADLESS-2") { $0.near($0.width / 2, 24, Self.colors["success"]!) }
        #expect(second.near(second.width / 2, 24, Self.colors["success"]!))
        #expect(!(try rig.screen(output: "HEADLESS-1")).near(640, 24, Self.colors["success"]!), "not on the first")
    }

    /// Idle after its first card has come and gone, the overlay's own binary
    /// keeps resident only what it ran since it let go of its start-up code
    /// (`StartUpPages`, `CodePages`): far less than the same overlay keeping
    /// its pages (`TOAST_OVERLAY_KEEP_CODE_PAGES`) after the same card.
    @Test(.enabled(if: wayland))
    func itLetsGoOfTheCodeOnlyItsStartRan() throws {
        func residentCodeKiB(keeping: Bool) throws -> Int {
            let rig = try Rig(.wayland, overlayEnvironment: keeping ? ["TOAST_OVERLAY_KEEP_CODE_PAGES": "1"] : [:])
            try rig.toastctl("add", "once", "--role", "success", "--duration", "indefinite")
            let shown = try rig.screen { $0.cards(atColumn: $0.width / 2) == 1 }
            #expect(shown.cards(atColumn: shown.width / 2) == 1)
            try rig.toastctl("clear")
            let cleared = try rig.screen { $0.cards(atColumn: $0.width / 2) == 0 }
            #expect(cleared.cards(atColumn: cleared.width / 2) == 0)
            usleep(500_000)
            let executable = try #require(ProcFile.link("/proc/\(rig.overlay)/exe"))
            let smaps = try #require(ProcFile.bytes("/proc/\(rig.overlay)/smaps"))
            return MappingsText.entries(smaps, fields: ["Rss:"]).filter { $0.path == executable }.reduce(0) { $0 + $1.values[0] }
        }
        let kept = try residentCodeKiB(keeping: true)
        let shipped = try residentCodeKiB(keeping: false)
        #expect(kept > 0)
        #expect(shipped * 2 < kept, "the overlay's binary: \(shipped) KiB resident, \(kept) KiB with its code pages kept")
    }

    /// Its threads allocate from one malloc arena: the subscription's
    /// thread, which reads every event, would otherwise keep a heap of its
    /// own (0.7 MiB of anonymous memory once idle, in the release build).
    @Test(.enabled(if: wayland))
    func itsThreadsShareOneMallocArena() throws {
        let rig = try Rig(.wayland)
        for index in 0..<3 {
            try rig.toastctl("add", "card \(index)", "--title", "CI", "--action", "open:Open", "--duration", "indefinite")
        }
        _ = try rig.screen { $0.cards(atColumn: $0.width / 2) == 3 }
        try rig.toastctl("clear")
        _ = try rig.screen { $0.cards(atColumn: $0.width / 2) == 0 }
        let maps = try #require(ProcFile.bytes("/proc/\(rig.overlay)/maps"))
        let heaps = Self.threadArenaHeaps(maps)
        #expect(heaps.isEmpty, "malloc heaps of other threads than the first: \(heaps)")
    }

    /// glibc's heaps for a thread's own arena, in a maps text: each a
    /// reservation of 64 MiB at an address aligned to it, mapped read-write
    /// from its start as it grows (the rest stays `---p`), with no file.
    static func threadArenaHeaps(_ maps: [UInt8]) -> [String] {
        let arena: UInt = 64 << 20
        let mappings = MappingsText.entries(maps, fields: [])
        var heaps: [String] = []
        for (index, mapping) in mappings.enumerated()
        where mapping.permissions == "rw-p" && mapping.path.isEmpty && mapping.start % arena == 0 {
            let rest = index + 1 < mappings.count ? mappings[index + 1] : nil
            let reservedToEnd = mapping.end - mapping.start == arena
                || rest.map { $0.permissions == "---p" && $0.path.isEmpty && $0.start == mapping.end && $0.end == mapping.start + arena } == true
            if reservedToEnd { heaps.append(String(mapping.start, radix: 16) + "-" + String(mapping.end, radix: 16)) }
        }
        return heaps
    }

    @Test func aThreadArenaHeapIsToldFromAThreadStack() {
        let maps = """
            7f0a40000000-7f0a40021000 rw-p 00000000 00:00 0 
            7f0a40021000-7f0a44000000 ---p 00000000 00:00 0 
            7f0a47fff000-7f0a48000000 ---p 00000000 00:00 0 
            7f0a48000000-7f0a48800000 rw-p 00000000 00:00 0 
            7f0a4c000000-7f0a4c021000 rw-p 00000000 00:00 0                          [heap]
            """
        #expect(Self.threadArenaHeaps(Array(maps.utf8)) == ["7f0a40000000-7f0a40021000"])
    }

    @Test(.enabled(if: !kinds.isEmpty), arguments: kinds)
    func itResumesWhenToastdRestartsAndExitsWhenTheDisplayGoes(_ kind: HeadlessDesktop.Kind) throws {
        let rig = try Rig(kind)
        try rig.toastctl("add", "before", "--role", "success", "--duration", "indefinite")
        _ = try rig.screen { $0.cards(atColumn: $0.width / 2) == 1 }
        rig.desktop.stop(rig.toastd)
        rig.toastd = try rig.startToastd()
        // A new instance: the overlay resyncs from its snapshot (the old card goes) and shows the new toast.
        try rig.toastctl("add", "after", "--role", "warning", "--duration", "indefinite")
        let screen = try rig.screen { $0.near($0.width / 2, 24, Self.colors["warning"]!) && $0.cards(atColumn: $0.width / 2) == 1 }
        #expect(screen.near(screen.width / 2, 24, Self.colors["warning"]!))
        #expect(screen.cards(atColumn: screen.width / 2) == 1)
        // The display goes away: the overlay exits with an error.
        rig.desktop.stop(rig.desktop.server)
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
