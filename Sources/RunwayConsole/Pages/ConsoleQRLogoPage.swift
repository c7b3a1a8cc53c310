import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayKit

/// The workspace's QR logos: listed, uploaded from a file (a multipart form, no script needed; PNG or SVG told apart
/// by the file's first bytes) and removed. The API checks and rewrites every upload (`POST /v1/qr-logos`).
enum QRLogoPage {
    /// Form controls and the API fields their errors come back under.
    static let fields: [String: String?] = ["name": nil, "file": "data"]

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, name: nil, problems: []))
    }

    static func page(_ context: ConsoleContext, name: String?, problems: [FormProblem]) async throws -> ConsolePage {
        let logos = try await logos(context)
        let f = context.format
        let list: Markup = logos.isEmpty
            ? ConsoleLayout.empty("No logos yet. Upload one above; a link's QR code can then carry it at its centre.")
            : ConsoleLayout.table(["name", "format", "size", "stored", "added", ConsoleLayout.actions], logos.map { logo in
                let size = logo.format == QRLogoFormat.png.rawValue ? "\(logo.width) × \(logo.height) pixels" : "\(logo.width) × \(logo.height) (viewBox)"
                return ["\(logo.name)", "\(logo.format.uppercased())", "\(size)", "\(f.number(logo.bytes)) bytes", "\(f.time(logo.createdAt))", """
                    <form method="post" action="/console/links/qr-logos/\(logo.id)/delete" class="inline">\(context.csrfField)\
                    <input type="hidden" name="ws" value="\(context.workspace.id)">\
                    <button type="submit" class="danger" aria-label="Remove \(logo.name)">Remove</button></form>
                    """]
            }, caption: "Logos of this workspace, oldest first")
        let fileProblem = problems.first { $0.fieldId == "file" }?.message
        let fileAttributes: Markup = fileProblem == nil ? " aria-describedby=\"file-hint\"" : " aria-invalid=\"true\" aria-describedby=\"file-error file-hint\""
        let fileError: Markup = fileProblem.map { "<span class=\"error\" id=\"file-error\">\($0)</span>" } ?? ""
        let form: Markup = """
            <form method="post" action="/console/links/qr-logos" enctype="multipart/form-data" class="card" novalidate>
            <h2>Upload a logo</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <input type="hidden" name="once" value="\(SecureRandom.string(length: 24, alphabet: SecureRandom.base62))">
            \(ConsoleForms.input("name", "Name", value: name, problem: problems.first { $0.fieldId == "name" }?.message,
                                 hint: "For people; the file's name when empty"))
            <div class="field"><label for="file">File</label>
            <input id="file" name="file" type="file" accept=".png,.svg,image/png,image/svg+xml"\(fileAttributes)>
            <span class="hint" id="file-hint">A PNG of at most 256 KiB and 1,024 pixels a side, or an SVG of shapes of at most 64 KiB (no text,
            images, scripts or styles). The server keeps a copy it writes itself.</span>\(fileError)</div>
            <button type="submit">Upload</button>
            </form>
            """
        return ConsolePage(title: "QR logos", body: form + list + "<p><a href=\"\(context.link("/console/links"))\">All links</a></p>",
                           status: problems.isEmpty ? 200 : 400, problems: problems)
    }

    static func logos(_ context: ConsoleContext) async throws -> [QRLogo] {
        try await context.api.all("/v1/qr-logos", query: [("workspaceId", context.workspace.id)], as: QRLogo.self)
    }

    static func upload(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let typed = form.text("name")
        guard let file = form.file("file") else {
            return .page(try await page(context, name: typed, problems: [FormProblem(fieldId: "file", message: "Choose a PNG or SVG file to upload")]))
        }
        guard let format = QRLogoFormat(sniffing: file.data) else {
            return .page(try await page(context, name: typed, problems: [FormProblem(fieldId: "file", message: "The file is neither a PNG nor an SVG")]))
        }
        let name = typed ?? defaultName(file.filename)
        let request = CreateQRLogoRequest(workspaceId: context.workspace.id, name: name, format: format.rawValue, data: Data(file.data).base64EncodedString())
        do {
            // The form's one-time token keys the call, so a form sent twice (a double click, a reload) stores one logo.
            let once = form.text("once").map { "console-qr-logo-" + $0.prefix(64) }
            let logo = try await context.api.send(.POST, "/v1/qr-logos", request, as: QRLogo.self, idempotencyKey: once)
            return .redirect(context.link("/console/links/qr-logos", [("notice", "Uploaded the logo \(logo.name).")]))
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 422 {
            return .page(try await page(context, name: typed, problems: [FormProblem(error, fields: fields)]))
        }
    }

    static func remove(_ context: ConsoleContext) async throws -> ConsoleResult {
        let id = context.parameter("id")
        guard let logo = try await logos(context).first(where: { $0.id == id }) else {
            throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil)
        }
        _ = try await context.api.raw(.DELETE, "/v1/qr-logos/\(logo.id)")
        return .redirect(context.link("/console/links/qr-logos", [("notice", "Removed the logo \(logo.name).")]))
    }

    /// The file's name without its folder and extension, or "Logo".
    static func defaultName(_ filename: String?) -> String {
        let base = (filename ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base  // trap-safe: the index is one of base
        let trimmed = String(stem.trimmingCharacters(in: .whitespaces).prefix(100))
        return trimmed.isEmpty ? "Logo" : trimmed
    }
}
