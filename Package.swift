// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LinkRunway",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "linkrunway", targets: ["linkrunway"]),
    ],
    // The SDK is its own package (iOS, tvOS and macOS, no dependencies); the server's tests drive it end to end.
    dependencies: [.package(path: "sdk")],
    targets: [
        // C libraries from Debian; only one wrapper target imports each.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CResolv"),
        .systemLibrary(name: "CMaxMindDB", pkgConfig: "libmaxminddb", providers: [.apt(["libmaxminddb-dev"])]),

        // Strict JSON parsing and decoding of outside input. No C modules below this line's graph.
        .target(name: "RunwayJSON"),
        // Wire types shared by the server and the CLI; the bounds of their numbers are checked as they are decoded.
        .target(name: "LinkRunwayAPI", dependencies: ["RunwayJSON"]),
        // Hashes, HMAC, randomness and constant-time comparison over OpenSSL 3.
        .target(name: "RunwayCrypto", dependencies: ["COpenSSL"]),
        // Apple's formats: CBOR, App Attest attestations and assertions, SKAdNetwork and AdAttributionKit postbacks and impressions,
        // and the Info.plist keys of both.
        .target(name: "AppleFormats", dependencies: ["RunwayCrypto", "RunwayJSON"]),
        // The store protocol, SQL values and migrations; backends live in their own targets.
        .target(name: "RunwayStore"),
        .target(name: "RunwaySQLite", dependencies: ["RunwayStore", "CSQLite"]),
        .target(name: "RunwayPostgres", dependencies: ["RunwayStore", "CPostgres"]),
        // QR codes (libqrencode) rendered as SVG and PNG (zlib), with colours and a checked logo.
        .target(name: "RunwayQR", dependencies: ["CQREncode", "CZlib"]),
        // Files of links to import (our CSV columns, Firebase Dynamic Links and Branch exports), read into link
        // definitions for the CLI and the console.
        .target(name: "RunwayImport", dependencies: ["LinkRunwayAPI"]),
        // Transport-free HTTP: router, middleware, in-process test client; errors carry the API's typed codes.
        .target(name: "RunwayHTTP", dependencies: ["LinkRunwayAPI", "RunwayJSON"]),
        // The libmicrohttpd transport.
        .target(name: "RunwayHTTPServer", dependencies: ["LinkRunwayAPI", "RunwayHTTP", "CMicroHTTPD"]),
        // Requests the server sends for tenants (webhooks, forwarded postbacks) over libcurl, to public addresses only.
        .target(name: "RunwayOutbound", dependencies: ["CCurl", "CResolv"]),
        // Countries of client addresses from a MaxMind-format database the operator provides (libmaxminddb, memory-mapped).
        .target(name: "RunwayGeo", dependencies: ["CMaxMindDB"]),
        // The server's capabilities, one folder each.
        // The server, in three layers the compiler keeps apart: the kit every capability shares, the capabilities
        // (links, attribution, postbacks…), the console (a client of the capabilities' handlers), and the composition
        // root that wires them to a store and libmicrohttpd.
        .target(name: "RunwayKit", dependencies: [
            "LinkRunwayAPI", "RunwayJSON", "RunwayCrypto", "AppleFormats", "RunwayStore", "RunwayHTTP", "RunwayOutbound",
        ]),
        .target(name: "RunwayCapabilities", dependencies: [
            "RunwayKit", "LinkRunwayAPI", "RunwayJSON", "RunwayCrypto", "AppleFormats", "RunwayStore", "RunwayHTTP", "RunwayQR",
            "RunwayOutbound", "RunwayGeo",
        ]),
        .target(name: "RunwayConsole", dependencies: [
            "RunwayKit", "RunwayCapabilities", "RunwayImport", "LinkRunwayAPI", "RunwayJSON", "RunwayCrypto", "RunwayStore", "RunwayHTTP",
        ]),
        .target(name: "RunwayServer", dependencies: [
            "RunwayKit", "RunwayCapabilities", "RunwayConsole",
            "LinkRunwayAPI", "RunwayJSON", "RunwayCrypto", "AppleFormats", "RunwayStore", "RunwaySQLite", "RunwayPostgres", "RunwayHTTP",
            "RunwayHTTPServer", "RunwayOutbound",
        ]),
        // Stand-ins for what the server calls and we cannot reach from here (Apple's AdServices API), for tests and
        // `linkrunway dev`; never part of the server.
        .target(name: "RunwayDevTools", dependencies: ["RunwayHTTP", "RunwayHTTPServer", "AppleFormats", "RunwayCrypto", "RunwayJSON"]),
        .target(name: "RunwayCLI", dependencies: ["RunwayServer", "RunwaySQLite", "RunwayImport", "LinkRunwayAPI", "RunwayJSON", "AppleFormats", "RunwayCrypto",
                                                  "RunwayDevTools"]),
        .executableTarget(name: "linkrunway", dependencies: ["RunwayCLI"]),

        // What the tests share: an in-process server made as `linkrunway serve` makes it, a server process, the store
        // backends, a manual clock, fakes and checkers.
        .target(name: "RunwayTestKit", dependencies: [
            "LinkRunwayAPI", "RunwayJSON", "RunwayCrypto", "RunwayStore", "RunwaySQLite", "RunwayPostgres", "RunwayHTTP", "RunwayOutbound",
            "RunwayGeo", "RunwayKit", "RunwayCapabilities", "RunwayConsole", "RunwayServer",
        ], path: "Tests/RunwayTestKit"),
        .testTarget(name: "RunwayTests", dependencies: [
            "RunwayTestKit", "LinkRunwayAPI", "RunwayJSON", "RunwayCrypto", "AppleFormats", "RunwayStore", "RunwaySQLite", "RunwayPostgres", "RunwayHTTP",
            "RunwayHTTPServer", "RunwayQR", "RunwayImport", "RunwayOutbound", "RunwayGeo", "RunwayKit", "RunwayCapabilities", "RunwayConsole", "RunwayServer", "RunwayCLI", "RunwayDevTools", "linkrunway", .product(name: "LinkRunway", package: "sdk"),
            .product(name: "LinkRunwayAds", package: "sdk"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
