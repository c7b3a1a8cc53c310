import Foundation
@testable import RunwayQR
import RunwayTestKit
import Testing

/// Every way a QR code can be drawn (colours, quiet zones, sizes up to print, PNG and SVG logos, short and long
/// links) is read back by a real decoder, zbarimg; SVG pictures are first drawn by Chromium, as a browser shows them.
@Suite("QR codes decode")
struct QRDecodeTests {
    static let links = ["https://go.example.com/summer",
                        "https://go.example.com/" + String(repeating: "spring-sale-for-returning-customers-", count: 4) + "x"]

    /// A round logo with a transparent surround, 240×160 so it is wider than tall.
    static let pngLogo: QRLogoImage = {
        var pixels = [UInt8]()
        for y in 0..<160 {
            for x in 0..<240 {
                let inside = pow(Double(x - 120) / 120, 2) + pow(Double(y - 80) / 80, 2) <= 1
                pixels += inside ? [230, 57, 70, 255] : [0, 0, 0, 0]
            }
        }
        return try! QRLogoImage(upload: PNGEncoder.rgba(width: 240, height: 160, pixels: pixels), format: .png)
    }()

    static let svgLogo = try! QRLogoImage(upload: Array("""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><defs><linearGradient id="g"><stop offset="0" stop-color="#e63946"/>\
        <stop offset="1" stop-color="#457b9d"/></linearGradient></defs><circle cx="50" cy="50" r="48" style="fill:url(#g)"/></svg>
        """.utf8), format: .svg)

    struct Variant: Sendable, CustomStringConvertible {
        let name: String, fg: QRColor, bg: QRColor, margin: Int, logo: QRLogoImage?, pixels: Int
        var description: String { name }
    }

    static let variants: [Variant] = [
        Variant(name: "plain", fg: .black, bg: .white, margin: 4, logo: nil, pixels: 512),
        Variant(name: "brand colours", fg: QRColor(hex: "1d3557")!, bg: QRColor(hex: "#f1faee")!, margin: 4, logo: nil, pixels: 512),
        Variant(name: "contrast just over 3:1", fg: QRColor(hex: "949494")!, bg: .white, margin: 4, logo: nil, pixels: 512),
        Variant(name: "quiet zone of 2", fg: .black, bg: .white, margin: 2, logo: nil, pixels: 400),
        Variant(name: "quiet zone of 12", fg: .black, bg: .white, margin: 12, logo: nil, pixels: 600),
        Variant(name: "small", fg: .black, bg: .white, margin: 4, logo: nil, pixels: 160),
        Variant(name: "print", fg: QRColor(hex: "264653")!, bg: .white, margin: 4, logo: nil, pixels: 2048),
        Variant(name: "PNG logo", fg: .black, bg: .white, margin: 4, logo: pngLogo, pixels: 512),
        Variant(name: "PNG logo in colours, print", fg: QRColor(hex: "1d3557")!, bg: QRColor(hex: "fefae0")!, margin: 4, logo: pngLogo, pixels: 2048),
        Variant(name: "SVG logo", fg: QRColor(hex: "2a2a2a")!, bg: .white, margin: 4, logo: svgLogo, pixels: 512),
    ]

    @Test("each variant's PNG decodes to the link", arguments: variants)
    func png(_ variant: Variant) async throws {
        let style = try QRStyle(foreground: variant.fg, background: variant.bg, margin: variant.margin, logo: variant.logo)
        guard style.drawsAsPNG else { return }
        let directory = TemporaryDirectory()
        for link in Self.links {
            let code = try QRCode(text: link, correction: style.correction(requested: .medium))
            let file = directory.path("code.png")
            try Data(code.png(pixels: variant.pixels, style: style)).write(to: URL(fileURLWithPath: file))
            #expect(try await Self.decode(file) == link, "\(variant.name), \(link.count) characters")
        }
    }

    @Test("each variant's SVG, drawn by Chromium, decodes to the link", arguments: variants.filter { $0.pixels <= 600 && $0.pixels >= 400 })
    func svg(_ variant: Variant) async throws {
        let style = try QRStyle(foreground: variant.fg, background: variant.bg, margin: variant.margin, logo: variant.logo)
        let directory = TemporaryDirectory()
        for link in Self.links {
            let code = try QRCode(text: link, correction: style.correction(requested: .medium))
            let svg = directory.path("code.svg"), png = directory.path("code.png")
            try code.svg(pixels: variant.pixels, style: style).write(toFile: svg, atomically: true, encoding: .utf8)
            try await Self.draw(svg, into: png, pixels: variant.pixels)
            #expect(try await Self.decode(png) == link, "\(variant.name), \(link.count) characters")
        }
    }

    /// What zbarimg reads from a picture, or "" when it finds no code.
    static func decode(_ file: String) async throws -> String {
        try await offloaded { try Subprocess.run("/usr/bin/env", ["zbarimg", "--raw", "-q", file]).stdout }
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A PNG of what headless Chromium draws for `svg`.
    static func draw(_ svg: String, into png: String, pixels: Int) async throws {
        let profile = TemporaryDirectory()
        let output = try await offloaded {
            try Subprocess.run("/usr/bin/env", [
                "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(profile.url.path)",
                "--window-size=\(pixels),\(pixels)", "--screenshot=\(png)", "file://\(svg)",
            ], timeoutSeconds: 120)
        }
        #expect(FileManager.default.fileExists(atPath: png), "Chromium drew nothing: \(output.stderr.suffix(500))")
    }
}
