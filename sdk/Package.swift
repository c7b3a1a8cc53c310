// swift-tools-version:6.1
import PackageDescription

// The LinkRunway SDK for Apple apps: no dependencies, no C modules, Swift 6 language mode. Two libraries that share
// nothing: `LinkRunway` (attribution, links, events) for the app being advertised or measured, and `LinkRunwayAds` (the
// publisher side of AdAttributionKit) for an app that shows ads. An app builds only the ones it names.
let package = Package(
    name: "LinkRunwaySDK",
    platforms: [.iOS(.v15), .macCatalyst(.v15), .tvOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "LinkRunway", targets: ["LinkRunway"]),
        .library(name: "LinkRunwayAds", targets: ["LinkRunwayAds"]),
    ],
    targets: [
        .target(name: "LinkRunway", resources: [.copy("Resources/PrivacyInfo.xcprivacy")]),
        .target(name: "LinkRunwayAds", resources: [.copy("Resources/PrivacyInfo.xcprivacy")]),
        // One suite for both libraries, so they share the stubbed server; tests are never built into an app.
        .testTarget(name: "LinkRunwayTests", dependencies: ["LinkRunway", "LinkRunwayAds"]),
    ],
    swiftLanguageModes: [.v6]
)
