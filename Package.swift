// swift-tools-version: 6.1
import PackageDescription

/// The include directories of cairo, pango and glib (what `pkg-config
/// --cflags pangocairo` says on Debian, without its -pthread).
let multiarch: String = {
    #if arch(arm64)
    return "aarch64-linux-gnu"
    #else
    return "x86_64-linux-gnu"
    #endif
}()
let pangoCairoIncludes = [
    "/usr/include/pango-1.0", "/usr/include/cairo", "/usr/include/glib-2.0", "/usr/lib/\(multiarch)/glib-2.0/include",
    "/usr/include/harfbuzz", "/usr/include/freetype2", "/usr/include/gdk-pixbuf-2.0", "/usr/include/libpng16",
].map { "-I" + $0 }

let package = Package(
    name: "toastd-suite",
    // Linux only: libsystemd, epoll, Wayland and X11 (SwiftPM names no Linux platform; `.custom` says it).
    platforms: [.custom("linux", versionString: "5.10")],
    products: [
        // The protocol's types and wire codec, for a client in Swift that speaks it without ToastKit.
        .library(name: "ToastProtocol", targets: ["ToastProtocol"]),
        .library(name: "ToastCore", targets: ["ToastCore"]),
        // The Swift client: a typed, async connection to toastd for any program.
        .library(name: "ToastKit", targets: ["ToastKit"]),
        .executable(name: "toastd", targets: ["toastd"]),
        .executable(name: "toastctl", targets: ["toastctl"]),
        .executable(name: "toastctl-full", targets: ["toastctl-full"]),
        .executable(name: "toast-tail", targets: ["toast-tail"]),
        .executable(name: "toast-notify", targets: ["toast-notify"]),
        .executable(name: "toast-overlay", targets: ["toast-overlay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        // Heap under the scheduler's deadlines (already in the graph through swift-nio); Deque measured in toast-bench.
        .package(url: "https://github.com/apple/swift-collections", exact: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
    ],
    targets: [
        // The protocol: the JSON library (JSON/), the model (Model/) and the
        // wire codec (Wire/). What every client needs, and nothing of the
        // scheduler: ToastKit stands on it alone.
        .target(name: "ToastProtocol"),
        // What the tools and the daemon need from the system: one monotonic clock,
        // one way to start a child process, /proc.
        .target(name: "ToastSystem", dependencies: ["CCodePages"]),
        // Regular expressions whose matching time is linear in the text (the rules').
        .target(name: "ToastRegex"),
        // RE2 (Debian libre2-dev) behind a C face: measured against ToastRegex in toast-bench's regex scenario.
        .target(name: "CRE2", linkerSettings: [.linkedLibrary("re2")]),
        // The scheduler: its state machine, the service around it (rules,
        // routing, backlog, history) and its tables (Tables/). Pure: no I/O.
        .target(
            name: "ToastCore",
            dependencies: [
                "ToastProtocol", "ToastRegex",
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // libsystemd, linked through pkg-config. Only the Systemd module touches it.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Safe Swift over libsystemd: sd_notify, socket activation, the watchdog, a journald log handler.
        .target(
            name: "Systemd",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")]
        ),
        // The system SQLite (Debian libsqlite3-dev), for ToastStore alone.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Durable state: the live toasts, counters and history in SQLite (WAL), through its C API.
        .target(name: "ToastStore", dependencies: ["ToastCore", "ToastSystem", "CSQLite"]),
        // The configuration file: role defaults, limits, levels, modes and rules, checked with positions.
        // toml++ (Debian libtomlplusplus-dev, header-only) behind a C face: the TOML reader.
        .target(name: "CTomlReader"),
        .target(name: "ToastConfig", dependencies: ["ToastCore", "ToastRegex", "ToastSystem", "CTomlReader"]),
        // org.freedesktop.Notifications over sd-bus: toastd as the desktop's notification server.
        // Safe Swift over sd-bus: a connection, its messages, handlers and
        // signal matches. With Systemd, the only module that imports CSystemd.
        .target(name: "SDBus", dependencies: ["CSystemd", "ToastSystem"]),
        // epoll, which Glibc's Swift module leaves out (the bridge's watcher, toast-bench's fan-out reader).
        .target(name: "CEpoll"),
        .target(name: "ToastFreedesktop", dependencies: ["ToastCore", "ToastSystem", "SDBus", "CEpoll"]),
        // utf8proc (Debian libutf8proc-dev): the terminal width of a character, for toast-tail.
        // (No pkgConfig: its .pc file passes -DUTF8PROC_EXPORTS, which SwiftPM warns about; the header is in /usr/include.)
        .systemLibrary(name: "CUtf8proc", providers: [.apt(["libutf8proc-dev"])]),
        // toast-overlay's drawing: Wayland layer-shell surfaces, cairo and pango
        // (measured against GTK 3: bench/overlay/measure.sh, docs/BENCHMARKS.md).
        // (Debian: libwayland-dev, libpango1.0-dev, libcairo2-dev. Their
        // include paths by hand: pangocairo's pkg-config file passes
        // -pthread, which SwiftPM warns about in a pkgConfig target.)
        .target(
            name: "COverlay",
            cSettings: [.unsafeFlags(pangoCairoIncludes)],
            linkerSettings: [
                "wayland-client", "xcb", "xcb-shape", "pangocairo-1.0", "pango-1.0", "cairo", "gdk_pixbuf-2.0", "gobject-2.0", "glib-2.0",
            ].map { .linkedLibrary($0) }
        ),
        // toast-overlay: follows toastd's stream and draws its stacks.
        .target(name: "ToastOverlay", dependencies: ["COverlay", "CHeapTrim", "ToastKit", "ToastSystem", "ToastConfig"]),
        .executableTarget(
            name: "toast-overlay",
            dependencies: ["ToastOverlay", "ToastKit", "ToastConfig", "CommandLineSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // glibc's malloc_trim, which Swift's Glibc module does not export.
        .target(name: "CHeapTrim"),
        // toastd's code read back in small pages, in one C function the order
        // puts in the hot blocks. -fno-plt: its calls into the C library go
        // through the GOT, bound at load, not through the PLT's pages.
        .target(name: "CCodePages", cSettings: [.unsafeFlags(["-fno-plt"])]),
        // The daemon: the socket server on swift-nio around the core.
        .target(
            name: "ToastDaemon",
            dependencies: [
                "ToastCore",
                "ToastStore",
                "ToastConfig",
                "ToastSystem",
                "CHeapTrim",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Swift client library: the socket, typed requests, replies and
        // events, an async session and a blocking facade. Only ToastProtocol below it.
        .target(name: "ToastKit", dependencies: ["ToastProtocol", "ToastSystem"]),
        // What every command-line tool shares: how it exits (2 on a usage
        // error), printing to stderr, and making untrusted text safe for a terminal.
        .target(
            name: "CommandLineSupport",
            dependencies: ["ToastSystem", "ToastProtocol", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // toastctl's subcommands, one file each, over ToastKit.
        .target(
            name: "ToastctlCommands",
            dependencies: ["ToastSystem", 
                "ToastProtocol",
                "ToastKit",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // toastd's flags, their mapping onto DaemonOptions, and the glue around ToastServer.
        .target(
            name: "ToastdCommand",
            dependencies: [
                "ToastDaemon",
                "ToastConfig",
                "ToastStore",
                "ToastFreedesktop",
                "Systemd",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "toastd", dependencies: ["ToastdCommand", "CommandLineSupport"]),
        // toast-tail: the viewer's model, a pure renderer, and the terminal around them.
        .target(
            name: "ToastTail",
            dependencies: [
                "ToastSystem",
                "ToastProtocol",
                "CUtf8proc",
                "ToastKit",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The full toastctl: every command, over ArgumentParser and ToastKit.
        .executableTarget(name: "toastctl-full", dependencies: ["ToastctlCommands", "ToastSystem"]),
        // toastctl's front (Embedded Swift, tens of KB): sends the plain form of
        // `add` itself and runs toastctl-full for everything else (Sources/toastctl/main.swift).
        .target(name: "CToastctlFront"),
        .executableTarget(
            name: "toastctl",
            dependencies: ["CToastctlFront"],
            swiftSettings: [.enableExperimentalFeature("Embedded"), .unsafeFlags(["-wmo"])]
        ),
        // Benchmarks and the soak: load generators, baselines, the report (scripts/bench.sh).
        .target(
            name: "ToastBench",
            dependencies: [
                "ToastCore", "ToastRegex", "ToastSystem", "ToastConfig", "ToastDaemon", "ToastKit", "ToastFreedesktop", "ToastFuzzing", "CEpoll", "SDBus", "CRE2", "ToastTail",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Counts malloc calls for the scheduler benchmark (linked into toast-bench only).
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "toast-bench",
            dependencies: ["ToastBench", "CAllocationCounter", "CommandLineSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The scheduler's invariants as a checker, and the fuzzer's input format.
        .target(name: "ToastFuzzing", dependencies: ["ToastCore", "ToastRegex"]),
        // libFuzzer's entry point (scripts/fuzz.sh); an empty program otherwise.
        .executableTarget(name: "toast-fuzz", dependencies: ["ToastFuzzing"]),
        // The swift-nio floor of the start-up benchmark (scripts/bench.sh builds it as toastd is built; never installed).
        .executableTarget(
            name: "nio-echo",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        ),
        // A left click on a headless sway through a virtual pointer (its seat has no
        // other): the overlay's Wayland click tests. Built with the tests, never installed.
        .executableTarget(name: "wayland-click", path: "Tests/Tools/wayland-click", linkerSettings: [.linkedLibrary("wayland-client")]),
        .executableTarget(name: "toast-tail", dependencies: ["ToastTail", "CommandLineSupport"]),
        // toast-notify: toastd's toasts on the desktop's own notification server.
        .target(name: "ToastNotify", dependencies: ["ToastSystem", "ToastProtocol", "ToastKit", "CommandLineSupport", "ToastFreedesktop", "SDBus"]),
        .executableTarget(
            name: "toast-notify",
            dependencies: ["ToastNotify", "ToastKit", "CommandLineSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "ToastCore", "ToastKit", "ToastctlCommands", "CommandLineSupport", "Systemd", "ToastFreedesktop", "SDBus", "ToastDaemon",
                "ToastSystem", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ToastctlCommandsTests",
            dependencies: [
                "ToastctlCommands", "ToastKit", "CommandLineSupport", "ToastCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "ToastOverlayTests", dependencies: ["ToastOverlay", "ToastProtocol", "ToastSystem"]),
        .testTarget(name: "ToastConfigTests", dependencies: ["ToastConfig", "ToastCore", "ToastRegex"]),
        .testTarget(
            name: "ToastProtocolTests",
            dependencies: ["ToastProtocol", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // ToastKit alone, and its session against an in-process toastd (ToastDaemon, test-only).
        .testTarget(
            name: "ToastKitTests",
            dependencies: ["ToastKit", "ToastDaemon", "ToastSystem", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "ToastSystemTests", dependencies: ["ToastSystem"]),
        .testTarget(name: "ToastRegexTests", dependencies: ["ToastRegex"]),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport", "ToastCore"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd"]),
        .testTarget(name: "ToastFuzzingTests", dependencies: ["ToastFuzzing", "ToastCore"]),
        .testTarget(
            name: "ToastdCommandTests",
            dependencies: [
                "ToastdCommand", "ToastDaemon", "ToastConfig", "ToastCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // A Swift program that shows toasts through ToastKit (README, "ToastKit").
        .executableTarget(name: "toastkit-example", dependencies: ["ToastKit"], path: "Examples/toastkit-example"),
        .testTarget(name: "ToastBenchTests", dependencies: ["ToastBench", "ToastCore"]),
        .testTarget(name: "ToastFreedesktopTests", dependencies: ["ToastFreedesktop", "ToastCore", "SDBus"]),
        .testTarget(name: "SDBusTests", dependencies: ["SDBus"]),
        .testTarget(name: "ToastNotifyTests", dependencies: ["ToastNotify", "ToastFreedesktop", "ToastProtocol"]),
        .testTarget(name: "ToastStoreTests", dependencies: ["ToastStore", "ToastCore", "CSQLite"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ToastDaemonTests",
            dependencies: [
                "ToastDaemon", "ToastCore", "ToastStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ToastTailTests",
            dependencies: ["ToastTail", "ToastCore"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "ToastCoreTests",
            dependencies: [
                "ToastCore",
                "ToastProtocol",
                "ToastRegex",
                "ToastConfig",
                "ToastFuzzing",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
