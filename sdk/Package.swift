// swift-tools-version:6.0
import PackageDescription

// The LinkRunway SDK for Apple apps: no dependencies, no C modules, Swift 6 language mode.
let package = Package(
    name: "LinkRunwaySDK",
    platforms: [.iOS(.v15), .tvOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "LinkRunway", targets: ["LinkRunway"]),
    ],
    targets: [
        .target(name: "LinkRunway", resources: [.copy("Resources/PrivacyInfo.xcprivacy")]),
        .testTarget(name: "LinkRunwayTests", dependencies: ["LinkRunway"]),
    ],
    swiftLanguageModes: [.v6]
)
