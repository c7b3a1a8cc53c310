import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayQR
import RunwayStore

/// A link's QR code in a workspace's colours and logo, and `/v1/qr-logos`, the logos it may carry.
struct QRHandlers: Sendable {
    let services: ServerServices

    func svg(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let (code, style, size) = try await picture(request, context)
        return picture(.text(code.svg(pixels: size, style: style), contentType: "image/svg+xml"))
    }

    func png(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let (code, style, size) = try await picture(request, context)
        guard style.drawsAsPNG else { throw QRError.logoSVGOnly(logoId: request.queryValue("logo") ?? "") }
        var response = HTTPResponse(status: 200, body: code.png(pixels: size, style: style))
        response.headers.set("Content-Type", "image/png")
        return picture(response)
    }

    private func picture(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set("Cache-Control", "private, max-age=86400")
        return response
    }

    /// The link's code and how to draw it, from the query: `size`, `margin`, `ecc`, `fg`, `bg` and `logo`. A logo
    /// raises the error correction to H, whatever `ecc` asks.
    private func picture(_ request: HTTPRequest, _ context: RequestContext) async throws -> (QRCode, QRStyle, Int) {
        let link = try await LinkHandlers(services: services).load(context)
        let size = try LinkHandlers.intQuery(request, "size", default: 512, range: 64...2048)
        let margin = try LinkHandlers.intQuery(request, "margin", default: 4, range: 0...16)
        guard let requested = QRCode.Correction(rawValue: (request.queryValue("ecc") ?? "M").uppercased()) else {
            throw RequestError.invalidQuery("ecc must be L, M, Q or H", field: "ecc")
        }
        let foreground = try Self.colour(request, "fg", default: .black)
        let background = try Self.colour(request, "bg", default: .white)
        var logo: QRLogoImage?
        if let id = request.queryValue("logo") { logo = try await self.logo(id, workspaceId: link.workspaceId) }
        let style: QRStyle
        do {
            style = try QRStyle(foreground: foreground, background: background, margin: margin, logo: logo)
        } catch {
            // QRStyle's initialiser throws only its Refusal.
            throw QRError.colours(error)
        }
        // The code's URL carries the QR marker, so a scan is told apart from a tap on the click and in reports.
        let code = try QRCode(text: link.url(services) + "?\(LinkRouting.qrMarker)=1", correction: style.correction(requested: requested))
        return (code, style, size)
    }

    static func colour(_ request: HTTPRequest, _ name: String, default value: QRColor) throws -> QRColor {
        guard let text = request.queryValue(name) else { return value }
        guard let colour = QRColor(hex: text) else {
            throw RequestError.invalidQuery("\(name) must be a hex colour: 6 or 3 digits, with or without #", field: name)
        }
        return colour
    }

    /// The stored logo `id` of `workspaceId`; another workspace's logo is not there.
    private func logo(_ id: String, workspaceId: String) async throws -> QRLogoImage {
        let stored = try await services.store.read { db in try QRLogoQueries.image(db, id: id) }
        guard let stored, stored.workspaceId == workspaceId, let format = QRLogoImage.Format(rawValue: stored.format) else {
            throw RequestError.invalidQuery("no QR logo \(id) in the link's workspace", field: "logo")
        }
        return try QRLogoImage(upload: stored.image, format: format)
    }

    func createLogo(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateQRLogoRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let name = try Validate.name(body.name)
        guard let format = QRLogoImage.Format(rawValue: body.format) else { throw RequestError.invalidField("format", "must be png or svg") }
        guard let data = ByteEncoding.fromBase64(body.data), !data.isEmpty else { throw RequestError.invalidField("data", "must be the file in standard base64") }
        let image: QRLogoImage
        do { image = try QRLogoImage(upload: data, format: format) } catch { throw QRError.invalidLogo(error.description) }
        let now = services.clock.nowMilliseconds()
        let stored = image.stored
        let logo = QRLogo(id: Identifier.make("qrl"), workspaceId: workspaceId, name: name, format: format.rawValue,
                          width: image.wholeWidth, height: image.wholeHeight, bytes: stored.count,
                          createdAt: Timestamp.iso(now))
        return try await IdempotencyClaim.write(services.store, context) { db in
            try QRLogoQueries.insert(db, logo, image: stored, now: now)
            return try .json(logo, status: 201)
        }
    }

    func listLogos(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let filter = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "qr_logos", columns: LinkRows.Logo.columns, filter: filter, page: page,
                                        as: LinkRows.Logo.self, wire: \.wire, id: \.id))
    }

    func deleteLogo(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("logoId")
        try await services.store.write { db in
            guard let workspaceId = try QRLogoQueries.workspace(db, id: id) else { throw RequestError.notFound("no QR logo \(id)") }
            try principal.requireWorkspace(workspaceId)
            try QRLogoQueries.delete(db, id: id)
        }
        return HTTPResponse(status: 204)
    }
}
