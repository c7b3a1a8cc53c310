import Foundation
import LinkRunwayAPI
import RunwayHTTP
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayQR
import RunwayTestKit
import Testing

extension ConsoleTests.Visitor {
    /// Sends a `multipart/form-data` form, as a browser sends one with a file input.
    func sendMultipart(_ path: String, fields: [(String, String)], file: (name: String, filename: String, type: String, data: [UInt8])?) async -> HTTPResponse {
        let boundary = "----LinkRunwayTest\(UUID().uuidString)"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: \(file.type)\r\n\r\n".utf8)
            body += file.data + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        var headers = HTTPHeaders([("Host", "localhost"), ("Content-Type", "multipart/form-data; boundary=\(boundary)")])
        if !cookies.isEmpty { headers.set("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        return await application.respond(to: HTTPRequest(method: "POST", path: path, query: [], headers: headers, body: body, remoteAddress: address))
    }
}

/// The console's QR code on a link's page (colours, logo, quiet zone, sizes up to print, in SVG and PNG) and the page
/// where logos are uploaded as files and removed.
@Suite("Console QR codes")
struct ConsoleQRTests {
    static let svgLogo = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#e63946"/></svg>"##

    /// What zbarimg reads from a PNG answer.
    static func decoded(_ response: HTTPResponse) async throws -> String {
        let directory = TemporaryDirectory(), file = directory.path("code.png")
        try Data(response.body).write(to: URL(fileURLWithPath: file))
        return try await QRDecodeTests.decode(file)
    }

    @Test("the link page draws the code with the form's colours, quiet zone and size; both downloads carry them, and the PNG at 2,048 pixels decodes")
    func panel() async throws {
        let (server, visitor, _, ws) = try await ConsoleTests.signedIn()
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "print"))
        let plain = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)").bodyText
        #expect(plain.contains("<img src=\"/console/links/\(link.id)/qr.svg\(consoleQuery([("ws", ws)]))\" alt=\"QR code for \(link.url)\">"))
        #expect(plain.contains("download=\"print.png\">Download as PNG</a>") && plain.contains("<option value=\"\">No logo</option>"))
        #expect(plain.contains("href=\"/console/links/qr-logos\(consoleQuery([("ws", ws)]))\""))

        let options = "fg=1d3557&bg=fefae0&margin=2&size=2048"
        let branded = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)&\(options)")
        #expect(branded.status == 200)
        let query = consoleQuery([("ws", ws), ("fg", "1d3557"), ("bg", "fefae0"), ("margin", "2"), ("size", "2048")])
        let escaped = Markup.escape(query)
        #expect(branded.bodyText.contains("<img src=\"/console/links/\(link.id)/qr.svg\(escaped)\"") && branded.bodyText.contains("/qr.png\(escaped)\" download"))
        #expect(branded.bodyText.contains("id=\"fg\" name=\"fg\" type=\"text\" value=\"1d3557\""), "the form keeps what was asked")
        let svg = await visitor.send("GET", "/console/links/\(link.id)/qr.svg\(query)")
        #expect(svg.headers["Content-Type"] == "image/svg+xml" && svg.bodyText.contains(##"fill="#1d3557""##) && svg.bodyText.contains("width=\"2048\""))
        let png = await visitor.send("GET", "/console/links/\(link.id)/qr.png\(query)")
        #expect(png.status == 200 && png.headers["Content-Type"] == "image/png")
        #expect(try await Self.decoded(png) == link.url + "?qr=1", "the link's URL with the QR marker, so a scan is told apart from a tap")
        await server.stop()
    }

    @Test("options the API refuses are all marked beside their fields at once, and no code is drawn until they are fixed")
    func refusedOptions() async throws {
        let (server, visitor, _, ws) = try await ConsoleTests.signedIn()
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "bad"))
        let page = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)&fg=ffffff&bg=000000&logo=qrl_nothing&margin=99&size=9000")
        #expect(page.status == 400 && page.bodyText.contains("<title>Error: Link /bad · LinkRunway</title>"))
        for field in ["fg", "logo", "margin", "size"] {
            #expect(page.bodyText.contains("<li><a href=\"#\(field)\">"), "\(field) is in the summary")
            #expect(page.bodyText.contains("id=\"\(field)\" name=\"\(field)\"") && page.bodyText.contains("id=\"\(field)-error\""), "\(field) is marked")
        }
        #expect(page.bodyText.contains("scanners cannot read light modules on dark") && !page.bodyText.contains("<img src"))
        let contrast = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)&fg=aaaaaa")
        #expect(contrast.status == 400 && contrast.bodyText.contains("scanners need at least 3:1"))
        await server.stop()
    }

    @Test("logos are uploaded as files (PNG or SVG told by their bytes), drawn into codes that decode, refused beside the file input, and removed")
    func logos() async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "brand"))
        #expect(await visitor.send("GET", "/console/links/qr-logos?ws=\(ws)").bodyText.contains("No logos yet"))
        let fields = [("csrf", csrf), ("ws", ws), ("once", "first-upload")]
        let png = await visitor.sendMultipart("/console/links/qr-logos", fields: fields + [("name", "")],
                                              file: ("file", "C:\\Brand\\round-logo.png", "image/png", QRDecodeTests.pngLogo.stored))
        #expect(png.status == 303 && png.headers["Location"]?.removingPercentEncoding?.contains("Uploaded the logo round-logo.") == true, "\(png.bodyText)")
        let again = await visitor.sendMultipart("/console/links/qr-logos", fields: fields + [("name", "")],
                                                file: ("file", "round-logo.png", "image/png", QRDecodeTests.pngLogo.stored))
        #expect(again.status == 303, "a form sent twice stores one logo")
        let svg = await visitor.sendMultipart("/console/links/qr-logos", fields: [("csrf", csrf), ("ws", ws), ("once", "second"), ("name", "Red dot")],
                                              file: ("file", "dot.svg", "application/octet-stream", Array(Self.svgLogo.utf8)))
        #expect(svg.status == 303)
        let logos = try await server.admin.get("/v1/qr-logos?workspaceId=\(ws)").decoded(Page<QRLogo>.self).items
        #expect(logos.map(\.name) == ["round-logo", "Red dot"] && logos.map(\.format) == ["png", "svg"])
        let list = await visitor.send("GET", "/console/links/qr-logos?ws=\(ws)").bodyText
        #expect(list.contains("<td>round-logo</td><td>PNG</td><td>240 × 160 pixels</td>") && list.contains("aria-label=\"Remove Red dot\""))

        let page = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)&logo=\(logos[0].id)").bodyText
        #expect(page.contains("<option value=\"\(logos[0].id)\" selected>round-logo (PNG)</option>"))
        let drawn = await visitor.send("GET", "/console/links/\(link.id)/qr.png?ws=\(ws)&logo=\(logos[0].id)&size=600")
        #expect(try await Self.decoded(drawn) == link.url + "?qr=1", "the code with the logo decodes")
        let withSVG = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)&logo=\(logos[1].id)").bodyText
        #expect(withSVG.contains("An SVG logo is drawn only in the SVG") && !withSVG.contains("Download as PNG"))

        let gif = await visitor.sendMultipart("/console/links/qr-logos", fields: [("csrf", csrf), ("ws", ws), ("name", "Old")],
                                              file: ("file", "old.gif", "image/gif", Array("GIF89a".utf8)))
        #expect(gif.status == 400 && gif.bodyText.contains("<li><a href=\"#file\">The file is neither a PNG nor an SVG</a></li>"))
        #expect(gif.bodyText.contains("id=\"file\" name=\"file\" type=\"file\"") && gif.bodyText.contains("aria-invalid=\"true\" aria-describedby=\"file-error file-hint\""))
        #expect(gif.bodyText.contains("value=\"Old\""), "the name typed is kept")
        let script = await visitor.sendMultipart("/console/links/qr-logos", fields: [("csrf", csrf), ("ws", ws)],
                                                 file: ("file", "x.svg", "image/svg+xml", Array(#"<svg viewBox="0 0 1 1"><script>alert(1)</script></svg>"#.utf8)))
        #expect(script.status == 400 && script.bodyText.contains("<li><a href=\"#file\">") && script.bodyText.contains("scripts are not accepted"))
        let none = await visitor.sendMultipart("/console/links/qr-logos", fields: [("csrf", csrf), ("ws", ws)], file: ("file", "", "application/octet-stream", []))
        #expect(none.status == 400 && none.bodyText.contains("Choose a PNG or SVG file"))
        let forged = await visitor.sendMultipart("/console/links/qr-logos", fields: [("ws", ws)], file: ("file", "x.svg", "image/svg+xml", Array(Self.svgLogo.utf8)))
        #expect(forged.status == 403, "a form without the session's token changes nothing")
        #expect(try await server.admin.get("/v1/qr-logos?workspaceId=\(ws)").decoded(Page<QRLogo>.self).items.count == 2)

        let removed = await visitor.send("POST", "/console/links/qr-logos/\(logos[1].id)/delete", form: [("csrf", csrf), ("ws", ws)])
        #expect(removed.status == 303 && removed.headers["Location"]?.removingPercentEncoding?.contains("Removed the logo Red dot.") == true)
        #expect(await visitor.send("POST", "/console/links/qr-logos/\(logos[1].id)/delete", form: [("csrf", csrf), ("ws", ws)]).status == 404)
        #expect(try await server.admin.get("/v1/qr-logos?workspaceId=\(ws)").decoded(Page<QRLogo>.self).items.map(\.id) == [logos[0].id])
        await server.stop()
    }

    @Test("a multipart form is read part by part; broken framing, a part without a name or too many parts is no form")
    func multipart() {
        let body = Array("preamble\r\n--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\none\r\n--b\r\ncontent-disposition: form-data; name=\"f\"; filename=\"x %22y%22.png\"\r\nContent-Type: image/png\r\n\r\n\u{0}\r\n\r\n--b--\r\nepilogue".utf8)
        let form = MultipartForm(body, boundary: "b")
        #expect(form?.parts == [.init(name: "a", filename: nil, contentType: nil, data: Array("one".utf8)),
                                .init(name: "f", filename: "x \"y\".png", contentType: "image/png", data: [0, 13, 10])])
        let fields = FormFields(body, contentType: "multipart/form-data; boundary=\"b\"")
        #expect(fields["a"] == "one" && fields.file("f")?.data == [0, 13, 10] && fields["f"] == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data;boundary=abc") == "abc")
        #expect(MultipartForm.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)) == nil)
        for broken in ["--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\none", "--b\r\nContent-Type: text/plain\r\n\r\none\r\n--b--",
                       "--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\none\r\n--b--", "no delimiter at all"] {
            #expect(MultipartForm(Array(broken.utf8), boundary: "b") == nil, "\(broken)")
        }
        let many = (0...MultipartForm.maxParts).map { "--b\r\nContent-Disposition: form-data; name=\"p\($0)\"\r\n\r\nv\r\n" }.joined() + "--b--"
        #expect(MultipartForm(Array(many.utf8), boundary: "b") == nil)
        #expect(FormFields(Array(many.utf8), contentType: "multipart/form-data; boundary=b")["p0"] == nil, "a broken form has no fields")
    }
}
