// swift-tools-version:6.0
import PackageDescription

// Type-checks the SDK's adapters to Apple's frameworks on Linux. The five stand-in modules carry Apple's module names
// and declare only the symbols the adapters use, as Apple documents them; `LinkRunway` and `LinkRunwayAds` are the
// SDK's own source folders (links), compiled with LINKRUNWAY_APPLE_STANDINS so the adapters' `#if` conditions hold as
// in an iOS build, and with warnings as errors. Nothing here ships or runs: `check.sh` builds it in `make test`.
let package = Package(
    name: "AppleStandIns",
    targets: [
        .target(name: "StoreKit", path: "StoreKit"),
        .target(name: "AdAttributionKit", path: "AdAttributionKit"),
        .target(name: "AdServices", path: "AdServices"),
        .target(name: "DeviceCheck", path: "DeviceCheck"),
        .target(name: "Security", path: "Security"),
        .target(name: "LinkRunway", dependencies: ["StoreKit", "AdAttributionKit", "AdServices", "DeviceCheck", "Security"], path: "LinkRunway",
                exclude: ["Resources"],
                swiftSettings: [.define("LINKRUNWAY_APPLE_STANDINS"), .unsafeFlags(["-warnings-as-errors"])]),
        // The publisher library (sdk/Sources/LinkRunwayAds), against the same AdAttributionKit stand-in.
        .target(name: "LinkRunwayAds", dependencies: ["AdAttributionKit"], path: "LinkRunwayAds", exclude: ["Resources"],
                swiftSettings: [.define("LINKRUNWAY_APPLE_STANDINS"), .unsafeFlags(["-warnings-as-errors"])]),
    ],
    swiftLanguageModes: [.v6]
)
