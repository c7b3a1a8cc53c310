import Foundation
import LinkRunwayAPI
import RunwayImport
import RunwayKit

/// Importing links by pasting a CSV file (ours, or a Firebase Dynamic Links or Branch export) into a form: one request
/// to `POST /v1/links/import`, so up to 500 rows; the command line takes files of any size.
enum ConsoleLinkImportPage {
    static let formats: [(ImportFormat, String)] = [
        (.linkrunway, "LinkRunway columns"), (.firebase, "Firebase Dynamic Links export"), (.branch, "Branch links export"),
    ]

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, values: FormFields([]), report: "", status: 200))
    }

    static func run(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let format = ImportFormat(rawValue: form["format"] ?? "") ?? .linkrunway
        func answer(_ report: Markup, status: Int = 200) async throws -> ConsoleResult {
            .page(try await page(context, values: form, report: report, status: status))
        }
        let rows: [ImportRow]
        do {
            rows = try format.rows(form["csv"] ?? "")
        } catch {
            return try await answer("<p class=\"error\" role=\"alert\">\(String(describing: error))</p>", status: 400)
        }
        let sendable = rows.compactMap(\.link)
        guard sendable.count <= ImportLinksRequest.batchLimit else {
            return try await answer("<p class=\"error\" role=\"alert\">The console imports up to \(ImportLinksRequest.batchLimit) rows at once; this file has \(sendable.count). Use linkrunway link import for larger files.</p>", status: 400)
        }
        var results: [LinkImportResult] = []
        if !sendable.isEmpty {
            let links = sendable.map { found in
                var link = found
                link.domain = link.domain ?? form.text("domain")
                link.appId = link.appId ?? form.text("app")
                return link
            }
            let request = ImportLinksRequest(workspaceId: context.workspace.id, dryRun: form["dryRun"] == "on", update: form["update"] == "on", links: links)
            do {
                results = try await context.api.send(.POST, "/v1/links/import", request, as: ImportLinksResponse.self).results
            } catch let error as ConsoleAPIError where error.status == 400 {
                return try await answer("<p class=\"error\" role=\"alert\">\(error.message)</p>", status: 400)
            }
        }
        var sent = results.makeIterator()
        let lines: [[Markup]] = rows.map { row in
            var status = row.skipped == nil ? "refused" : "skipped"
            var detail = [row.problem, row.skipped].compactMap { $0 }
            var path = row.link?.path ?? "–"
            if row.link != nil, let result = sent.next() {
                status = result.status
                path = result.path ?? path
                detail += [result.error?.message, result.differences.map { "differs in " + $0.joined(separator: ", ") }].compactMap { $0 }
            }
            detail += row.notes
            return ["\(row.line)", "\(path)", "\(status)", "\(detail.isEmpty ? "–" : detail.joined(separator: "; "))"]
        }
        let counts = ImportLinksResponse(dryRun: form["dryRun"] == "on", results: results)
        let summary = "\(form["dryRun"] == "on" ? "Dry run, nothing changed: " : "")\(counts.created) created, \(counts.unchanged) unchanged, "
            + "\(counts.updated) updated, \(counts.conflicts) conflicts, \(counts.refused + rows.count { $0.link == nil && $0.skipped == nil }) refused"
        return try await answer("<p role=\"status\">\(summary)</p>" + ConsoleLayout.table(["line", "path", "result", "detail"], lines, caption: "Rows of the file"))
    }

    static func page(_ context: ConsoleContext, values: FormFields, report: Markup, status: Int) async throws -> ConsolePage {
        let apps = try await context.apps()
        let domains = try await context.api.all("/v1/domains", query: [("workspaceId", context.workspace.id)], as: LinkDomain.self)
        let formatOptions = Markup.join(formats.map { format, label in
            let mark: Markup = values["format"] == format.rawValue ? " selected" : ""
            return "<option value=\"\(format.rawValue)\"\(mark)>\(label)</option>"
        })
        let domainOptions = Markup.join(domains.map { domain in
            let mark: Markup = values["domain"] == domain.hostname ? " selected" : ""
            return "<option\(mark)>\(domain.hostname)</option>"
        })
        let dryRun: Markup = values["csv"] == nil || values["dryRun"] == "on" ? " checked" : ""
        let update: Markup = values["update"] == "on" ? " checked" : ""
        let body: Markup = """
            \(report)
            <form method="post" action="/console/links/import" class="card" novalidate>
            <h2>Import links from a CSV file</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="format">Format</label><select id="format" name="format">\(formatOptions)</select>
            <label for="domain">Domain of rows that name none</label><select id="domain" name="domain">\(domainOptions)</select>
            <label for="app">App of rows that name none</label>\(ConsolePages.appSelect(apps, selected: values["app"], allowAll: false))
            <label for="csv">The file, header row first (up to \(ImportLinksRequest.batchLimit) rows)</label>
            <textarea id="csv" name="csv" rows="12">\(values["csv"] ?? "")</textarea>
            <label class="check"><input type="checkbox" name="dryRun"\(dryRun)> Dry run: check every row, change nothing</label>
            <label class="check"><input type="checkbox" name="update"\(update)> Change links that exist with other fields</label>
            <button type="submit">Import</button>
            </form>
            <p><a href="\(context.link("/console/links"))">All links</a></p>
            """
        return ConsolePage(title: "Import links", body: body, status: status)
    }
}
