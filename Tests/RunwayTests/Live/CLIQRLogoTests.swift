import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import Testing

/// `linkrunway qr-logo` against a real server: logos added from files, listed, drawn by `link qr --logo` into codes that
/// zbarimg reads, and removed.
@Suite("CLI QR logos")
struct CLIQRLogoTests {
    @Test("qr-logo add reads a PNG or SVG file (its format from its bytes), list shows them, link qr draws them, remove removes them")
    func logos() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let created = await run(["link", "create", "--path", "brand", "--json"])
        let link = try JSONDecoder().decode(Link.self, from: Data(created.output.utf8))

        let png = directory.path("round-logo.png"), svg = directory.path("dot.svg"), gif = directory.path("old.gif")
        try Data(QRDecodeTests.pngLogo.stored).write(to: URL(fileURLWithPath: png))
        try Data(##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#e63946"/></svg>"##.utf8)
            .write(to: URL(fileURLWithPath: svg))
        try Data("GIF89a".utf8).write(to: URL(fileURLWithPath: gif))
        let addedPNG = await run(["qr-logo", "add", png, "--json"])
        #expect(addedPNG.status == 0, "\(addedPNG.errors)")
        let pngLogo = try JSONDecoder().decode(QRLogo.self, from: Data(addedPNG.output.utf8))
        #expect(pngLogo.name == "round-logo" && pngLogo.format == "png" && pngLogo.width == 240)
        let addedSVG = await run(["qr-logo", "add", svg, "--name", "Red dot"])
        #expect(addedSVG.status == 0 && addedSVG.output.contains("Red dot (svg, 10×10)"), "\(addedSVG.output)\(addedSVG.errors)")

        let listed = await run(["qr-logo", "list"])
        #expect(listed.output.contains("round-logo") && listed.output.contains("Red dot") && listed.output.hasPrefix("ID"), "\(listed.output)")
        let logos = try JSONDecoder().decode([QRLogo].self, from: Data(await run(["qr-logo", "list", "--json"]).output.utf8))
        #expect(logos.map(\.format) == ["png", "svg"])

        let out = directory.path("brand.png")
        let drawn = await run(["link", "qr", link.id, "--logo", pngLogo.id, "--fg", "1d3557", "--size", "600", "--out", out])
        #expect(drawn.status == 0, "\(drawn.errors)")
        #expect(try await QRDecodeTests.decode(out) == link.url + "?qr=1", "the code with the logo decodes (the link with the QR marker)")
        let svgOnly = await run(["link", "qr", link.id, "--logo", logos[1].id, "--out", out])
        #expect(svgOnly.status == 1 && svgOnly.errors.contains("logo_svg_only"))

        let notALogo = await run(["qr-logo", "add", gif])
        #expect(notALogo.status == 64 && notALogo.errors.contains("neither a PNG nor an SVG"))
        let forced = await run(["qr-logo", "add", gif, "--format", "png"])
        #expect(forced.status == 1 && forced.errors.contains("invalid_logo"), "the server judges the file: \(forced.errors)")
        #expect(await run(["qr-logo", "add", directory.path("missing.png")]).status == 1)
        #expect(await run(["qr-logo", "add", png, "--format", "gif"]).status == 64)

        #expect(await run(["qr-logo", "remove", logos[1].id]).output.contains("Removed \(logos[1].id)"))
        #expect(await run(["qr-logo", "remove", logos[1].id]).errors.contains("not_found"))
        #expect(try JSONDecoder().decode([QRLogo].self, from: Data(await run(["qr-logo", "list", "--json"]).output.utf8)).map(\.id) == [pngLogo.id])
        await runtime.stop()
    }
}
