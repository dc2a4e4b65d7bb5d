// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "toastd-suite",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ToastCore", targets: ["ToastCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The pure core: model, validation, scheduler state machine, wire codec.
        // Depends on nothing but the standard library and FoundationEssentials.
        .target(name: "ToastCore"),
        .testTarget(
            name: "ToastCoreTests",
            dependencies: [
                "ToastCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
