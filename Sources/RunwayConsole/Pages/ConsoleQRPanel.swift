import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// A link's QR code on its page: a GET form for the colours, a logo of the workspace, the quiet zone and the size (up
/// to 2,048 pixels, for print), the code drawn with them, and downloads as SVG and PNG. The API draws and judges every
/// option, so what it refuses (colours a scanner cannot read, an unknown logo, a size out of range) is marked beside
/// its field like any refused form.
enum QRPanel {
    /// The form's fields, named as the API's query parameters.
    static let options = ["fg", "bg", "logo", "margin", "size"]

    /// The options the page was asked for, without the empty ones.
    static func chosen(_ request: HTTPRequest) -> [(String, String?)] {
        options.map { name in (name, request.queryValue(name).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }) }
    }

    /// What the API refuses of the chosen options when it draws the code with them (nothing when none is chosen). The
    /// API stops at the first problem, so after a refusal each option (the colours as a pair) is tried alone, and
    /// every bad field is marked at once.
    static func problems(_ context: ConsoleContext, link: Link) async throws -> [FormProblem] {
        let query = chosen(context.request)
        guard query.contains(where: { $0.1 != nil }) else { return [] }
        func refusal(_ names: [String]) async throws -> FormProblem? {
            do {
                _ = try await context.api.raw(.GET, "/v1/links/\(link.id)/qr.svg", query: query.filter { names.contains($0.0) })
                return nil
            } catch let error as ConsoleAPIError where error.status == 400 {
                return FormProblem(error, fields: Dictionary(uniqueKeysWithValues: options.map { ($0, nil) }))
            }
        }
        guard let first = try await refusal(options) else { return [] }
        var problems: [FormProblem] = []
        for names in [["fg", "bg"], ["logo"], ["margin"], ["size"]] {
            if let problem = try await refusal(names), !problems.contains(where: { $0.fieldId == problem.fieldId }) { problems.append(problem) }
        }
        return problems.isEmpty ? [first] : problems
    }

    static func render(_ context: ConsoleContext, link: Link, logos: [QRLogo], problems: [FormProblem]) -> Markup {
        let query = chosen(context.request)
        let value: [String: String] = Dictionary(uniqueKeysWithValues: query.compactMap { name, chosen in chosen.map { (name, $0) } })
        func field(_ name: String, _ label: String, type: String = "text", hint: String) -> Markup {
            ConsoleForms.input(name, label, value: value[name], problem: problems.first { $0.fieldId == name }?.message, type: type, hint: hint)
        }
        let logoProblem = problems.first { $0.fieldId == "logo" }?.message
        let selected = value["logo"]
        let logoOptions = Markup.join([Markup("<option value=\"\">No logo</option>")] + logos.map { logo -> Markup in
            "<option value=\"\(logo.id)\"\(logo.id == selected ? Markup(" selected") : "")>\(logo.name) (\(logo.format.uppercased()))</option>"
        })
        let logoAttributes: Markup = logoProblem == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"logo-error\""
        let logoError: Markup = logoProblem.map { "<span class=\"error\" id=\"logo-error\">\($0)</span>" } ?? ""
        let picture: Markup
        if problems.isEmpty {
            let svg = context.link("/console/links/\(link.id)/qr.svg", query), png = context.link("/console/links/\(link.id)/qr.png", query)
            let svgLogo = logos.first { $0.id == selected }?.format == QRLogoFormat.svg.rawValue
            let pngDownload: Markup = svgLogo
                ? "<p class=\"hint\">An SVG logo is drawn only in the SVG; upload a PNG of it for a PNG download.</p>"
                : "<p><a href=\"\(png)\" download=\"\(link.path).png\">Download as PNG</a></p>"
            picture = """
                <img src="\(svg)" alt="QR code for \(link.url)">
                <p><a href="\(svg)" download="\(link.path).svg">Download as SVG</a></p>\(pngDownload)
                """
        } else {
            picture = "<p class=\"hint\">The code is drawn again once the options below are fixed.</p>"
        }
        return """
            <div class="card qr">
            <h2>QR code</h2>
            \(picture)
            <form method="get" action="/console/links/\(link.id)" novalidate>
            <input type="hidden" name="ws" value="\(context.workspace.id)">\(ConsoleRangeForm.hidden(context.request))
            \(field("fg", "Module colour", hint: "A hex colour (default 000000), darker than the background, at least 3:1"))
            \(field("bg", "Background colour", hint: "A hex colour (default ffffff)"))
            <div class="field"><label for="logo">Logo at the centre</label><select id="logo" name="logo"\(logoAttributes)>\(logoOptions)</select>\(logoError)</div>
            \(field("margin", "Quiet zone", type: "number", hint: "Modules on each side, 0 to 16 (default 4; scanners want 4)"))
            \(field("size", "Size", type: "number", hint: "Pixels a side, 64 to 2,048 (default 512; 2,048 for print)"))
            <button type="submit">Draw</button>
            </form>
            <p><a href="\(context.link("/console/links/qr-logos"))">Upload or remove logos</a></p>
            </div>
            """
    }
}
