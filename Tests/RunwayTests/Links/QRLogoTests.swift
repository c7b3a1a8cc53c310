import Foundation
import LinkRunwayAPI
import RunwayHTTP
@testable import RunwayQR
import RunwayTestKit
import Testing

/// Branded QR codes through the API: logos uploaded and checked, colours checked for contrast, and each refusal with
/// its stable code.
@Suite("QR logos and colours")
struct QRLogoTests {
    static func upload(_ server: TestServer, _ format: String, _ bytes: [UInt8], workspace: String) async throws -> HTTPResponse {
        try await server.admin.post("/v1/qr-logos", CreateQRLogoRequest(workspaceId: workspace, name: "Brand", format: format, data: Data(bytes).base64EncodedString()))
    }

    @Test("a PNG and an SVG logo are stored, listed, drawn (the PNG code decodes with zbarimg) and removed")
    func logos() async throws {
        let server = try await TestServer.start()
        let workspace = server.defaultWorkspace.id
        let link = try await server.createLink(CreateLinkRequest(workspaceId: workspace, path: "brand"))
        let png = try await Self.upload(server, "png", QRDecodeTests.pngLogo.stored, workspace: workspace).decoded(QRLogo.self, status: 201)
        #expect(png.format == "png" && png.width == 240 && png.height == 160)
        let svgText = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20"><rect width="40" height="20" fill="#e63946"/></svg>"##
        let svg = try await Self.upload(server, "svg", Array(svgText.utf8), workspace: workspace).decoded(QRLogo.self, status: 201)
        #expect(svg.format == "svg" && svg.width == 40 && svg.height == 20)
        let listed = try await server.admin.get("/v1/qr-logos?workspaceId=\(workspace)").decoded(Page<QRLogo>.self, status: 200)
        #expect(listed.items.map(\.id) == [png.id, svg.id])

        let picture = await server.admin.get("/v1/links/\(link.id)/qr.png?fg=1d3557&bg=%23fefae0&logo=\(png.id)&size=600")
        #expect(picture.status == 200 && picture.headers["Content-Type"] == "image/png")
        let directory = TemporaryDirectory(), file = directory.path("brand.png")
        try Data(picture.body).write(to: URL(fileURLWithPath: file))
        #expect(try await QRDecodeTests.decode(file) == link.url + "?qr=1", "a scan carries the QR marker")
        let drawn = await server.admin.get("/v1/links/\(link.id)/qr.svg?logo=\(svg.id)&fg=264653")
        #expect(drawn.status == 200 && drawn.bodyText.contains("data:image/svg+xml;base64,") && drawn.bodyText.contains(##"fill="#264653""##))

        let refused = await server.admin.get("/v1/links/\(link.id)/qr.png?logo=\(svg.id)")
        #expect(refused.errorCode == "logo_svg_only" && refused.errorField == "logo")
        let other = try await server.createWorkspace("Other")
        let theirs = try await Self.upload(server, "png", QRDecodeTests.pngLogo.stored, workspace: other.id).decoded(QRLogo.self, status: 201)
        #expect(await server.admin.get("/v1/links/\(link.id)/qr.svg?logo=\(theirs.id)").errorCode == "invalid_query", "another workspace's logo is not there")

        #expect(await server.admin.send("DELETE", "/v1/qr-logos/\(png.id)").status == 204)
        #expect(await server.admin.get("/v1/links/\(link.id)/qr.png?logo=\(png.id)").errorCode == "invalid_query")
        await server.stop()
    }

    @Test("colours a scanner cannot read, and uploads that are not a logo, are refused with stable codes")
    func refusals() async throws {
        let server = try await TestServer.start()
        let workspace = server.defaultWorkspace.id
        let link = try await server.createLink(CreateLinkRequest(workspaceId: workspace, path: "refused"))
        for query in ["fg=aaaaaa", "fg=ffffff&bg=000000", "fg=777777&bg=555555"] {
            let answer = await server.admin.get("/v1/links/\(link.id)/qr.svg?\(query)")
            #expect(answer.errorCode == "low_contrast", "\(query): \(answer.bodyText)")
        }
        #expect(await server.admin.get("/v1/links/\(link.id)/qr.png?fg=red").errorCode == "invalid_query")
        #expect(await server.admin.get("/v1/links/\(link.id)/qr.png?bg=%2312345").errorField == "bg")

        let uploads: [(String, [UInt8])] = [
            ("png", Array("GIF89a not a png".utf8)),
            ("png", Array(QRDecodeTests.pngLogo.stored.dropLast(20))),
            ("svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><script>alert(1)</script></svg>"#.utf8)),
            ("svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1" onload="alert(1)"/>"#.utf8)),
            ("svg", Array(#"<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg viewBox="0 0 1 1">&a;</svg>"#.utf8)),
            ("svg", Array(#"<svg viewBox="0 0 1 1"><image href="https://example.com/x.png"/></svg>"#.utf8)),
            ("svg", Array(#"<svg viewBox="0 0 1 1"><rect fill="url(https://example.com/p)"/></svg>"#.utf8)),
            ("svg", Array(#"<svg viewBox="0 0 1 1"><rect/>"#.utf8)),
        ]
        for (format, bytes) in uploads {
            let answer = try await Self.upload(server, format, bytes, workspace: workspace)
            #expect(answer.errorCode == "invalid_logo", "\(String(decoding: bytes.prefix(60), as: UTF8.self)): \(answer.bodyText)")
        }
        let big = try await Self.upload(server, "png", [UInt8](repeating: 7, count: QRLogoImage.maxPNGBytes + 1), workspace: workspace)
        #expect(big.errorCode == "invalid_logo" && big.bodyText.contains("at most"))
        #expect(try await Self.upload(server, "gif", [1, 2, 3], workspace: workspace).errorField == "format")
        await server.stop()
    }

    @Test("an SVG whose frame hides words among its numbers, or is not finite or too large, is refused instead of stopping the server (found by fuzzing)")
    func unboundedFrames() async throws {
        let server = try await TestServer.start()
        let frames = [
            #"viewBox="0 0 10 words 44444444444444444444444444444444444444444444444444444444444444444""#,
            #"viewBox="0 0 1e300 1e300""#, #"viewBox="0 0 inf 10""#, #"viewBox="0 0 10 nan""#, #"viewBox="0 0 2000000 10""#,
            #"width="1e999" height="10""#, #"width="10px" height="-3""#,
        ]
        for frame in frames {
            let text = #"<svg xmlns="http://www.w3.org/2000/svg" \#(frame)><rect width="1" height="1"/></svg>"#
            let answer = try await Self.upload(server, "svg", Array(text.utf8), workspace: server.defaultWorkspace.id)
            #expect(answer.errorCode == "invalid_logo" && answer.errorField == "data", "\(frame): \(answer.bodyText)")
        }
        let largest = try QRLogoImage(upload: Array(#"<svg viewBox="0,0 1000000 0.5"><rect/></svg>"#.utf8), format: .svg)
        #expect(largest.wholeWidth == 1_000_000 && largest.wholeHeight == 1, "the largest frame there is still has a whole size")
        await server.stop()
    }

    @Test("an SVG is rebuilt from what is allowed: editors' extras and titles go, styles keep only safe properties")
    func sanitised() throws {
        let text = """
            <?xml version="1.0"?><!-- made by hand --><svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="x" width="20px" height="10px">\
            <title>Logo</title><inkscape:grid/><g id="a" inkscape:label="L" class="c"><path d="M0 0h20v10z" \
            style="fill:#123456;stroke:none;font-family:Comic;mask:url(#m)"/></g></svg>
            """
        guard case .svg(let svg) = try QRLogoImage(upload: Array(text.utf8), format: .svg) else { Issue.record("not an SVG"); return }
        #expect(svg.markup == ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20.0 10.0"><g id="a"><path d="M0 0h20v10z" style="fill:#123456;stroke:none"/></g></svg>"##)
        #expect(try QRLogoImage(upload: Array(svg.markup.utf8), format: .svg) == .svg(svg), "sanitising what we wrote changes nothing")
    }

    @Test("PNGs of every colour type and depth decode; the decoder's limits hold")
    func pngDecoder() throws {
        let grey = try PNGDecoder.decode(PNGEncoder.indexed(width: 2, height: 1, palette: [.white, .black], indices: [0, 1]), maxSide: 4)
        #expect(grey.pixels == [255, 255, 255, 255, 0, 0, 0, 255])
        let rgb = try PNGDecoder.decode(PNGEncoder.rgb(width: 1, height: 2, pixels: [1, 2, 3, 4, 5, 6]), maxSide: 4)
        #expect(rgb.pixels == [1, 2, 3, 255, 4, 5, 6, 255])
        #expect(throws: PNGDecoder.Failure.self) { try PNGDecoder.decode(PNGEncoder.rgb(width: 5, height: 1, pixels: [UInt8](repeating: 0, count: 15)), maxSide: 4) }
        // Paeth (4) and sub (1) filters, as other encoders write them.
        let header = PNGEncoder.be32(2) + PNGEncoder.be32(1) + [8, 0, 0, 0, 0]
        let rows: [UInt8] = [1, 10, 5]
        let file = PNGDecoder.signature + PNGEncoder.chunk("IHDR", header) + PNGEncoder.chunk("IDAT", PNGEncoder.deflate(rows)) + PNGEncoder.chunk("IEND", [])
        #expect(try PNGDecoder.decode(file, maxSide: 4).pixels == [10, 10, 10, 255, 15, 15, 15, 255])
    }

    @Test("colour pairs under 3:1, or light on dark, are refused")
    func contrast() throws {
        #expect(throws: QRStyle.Refusal.inverted) { try QRStyle(foreground: .white, background: .black) }
        #expect(throws: QRStyle.Refusal.self) { try QRStyle(foreground: QRColor(hex: "999")!, background: .white) }
        _ = try QRStyle(foreground: QRColor(hex: "949494")!, background: .white)
        #expect(QRColor(hex: "#1D3557")?.hex == "#1d3557")
        #expect(QRColor(hex: "12345g") == nil && QRColor(hex: "") == nil)
    }
}
