import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about QR codes and their logos.
extension Operation {
    static let linkQRSVG = linkQR(format: "svg")
    static let linkQRPNG = linkQR(format: "png")

    /// The QR code of a link as a picture in `format` (svg or png).
    static func linkQR(format: String) -> Operation {
        let logo = format == "svg"
            ? "A QR logo's id (qrl_…) of the link's workspace, drawn at the centre; error correction becomes H."
            : "A PNG QR logo's id (qrl_…) of the link's workspace, drawn at the centre; error correction becomes H. An SVG logo is logo_svg_only here."
        return Operation(
            id: "linkQR\(format.uppercased())", summary: "The link as a QR code (\(format.uppercased()))", tag: "Links",
            access: Access.management,
            responses: [ResponseDoc(status: 200, description: "The picture.", contentType: format == "svg" ? "image/svg+xml" : "image/png")],
            query: [
                QueryParameterDoc("size", "Pixels per side, 64 to 2048 (default 512).", schema: "integer"),
                QueryParameterDoc("margin", "Quiet zone in modules, 0 to 16 (default 4).", schema: "integer"),
                QueryParameterDoc("ecc", "Error correction: L, M (default), Q or H."),
                QueryParameterDoc("fg", "Module colour, hex (1d3557 or #1d3557; default 000000). It must be darker than bg, with a contrast of at least 3:1 (else low_contrast)."),
                QueryParameterDoc("bg", "Background colour, hex (default ffffff)."),
                QueryParameterDoc("logo", logo),
            ])
    }

    static let createQRLogo = Operation(
        id: "createQRLogo", summary: "Upload a logo for the centre of QR codes (PNG, or SVG of shapes only)", tag: "Links",
        access: Access.management, requestSchema: .of(CreateQRLogoRequest.self), responses: [.json(201, QRLogo.self, "The logo.")],
        maxBodyBytes: 512 * 1024, idempotent: true)

    static let listQRLogos = Operation(
        id: "listQRLogos", summary: "List QR logos", tag: "Links", access: Access.management,
        responses: [.json(200, Page<QRLogo>.self, "A page of logos, oldest first.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's logos.")] + pageQuery, errors: [404])

    static let deleteQRLogo = Operation(
        id: "deleteQRLogo", summary: "Remove a QR logo", tag: "Links", access: Access.management,
        responses: [ResponseDoc(status: 204, description: "Removed.")])
}
