import Foundation
import LinkRunwayAPI
import RunwayImport

/// `link import`: a CSV file of links (ours, or a Firebase Dynamic Links or Branch export) through `POST /v1/links/import`,
/// reported row by row.
enum LinkImportCommand {
    /// One line of the report: a row of the file and what became of it.
    struct ReportRow: Codable, Sendable {
        var line: Int
        var sourceURL: String?
        var path: String?
        /// created, unchanged, updated, conflict, refused or skipped.
        var status: String
        var linkId: String?
        var url: String?
        var differences: [String]?
        var error: ErrorBody.Detail?
        var notes: [String]?
    }

    /// Rows per request and the JSON a request may carry (the server takes 500 and 4 MiB).
    static let batchRows = ImportLinksRequest.batchLimit
    static let batchBytes = 3 * 1024 * 1024

    static let command: Command = Command(["link", "import"], summary: "Create many links from a CSV file, with a dry run and a report per row.",
                                 arguments: "<file.csv>", options: [
        .value("--from", "format", "linkrunway (our columns, the default), firebase (a Dynamic Links export) or branch (a Branch links export)."),
        .flag("--dry-run", "Check every row and report what would happen; change nothing."),
        .flag("--update", "Change links that exist with other fields to match their rows (default: report a conflict)."),
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."),
        .value("--domain", "hostname", "Link domain of rows that name none (default: the workspace's first)."),
        .value("--app", "id", "App of rows that name none (default: the workspace's only app)."), TenancyCommands.jsonFlag,
    ] + APIClient.options, details: """
        Rows are found by domain and path, so running the same file again creates nothing: each row is created, unchanged,
        a conflict (the link exists with other fields; left as it is unless --update), refused (with the reason) or
        skipped. Values a row holds that have no place in a link are listed beside it. The columns of each format are in
        docs/links.md and docs/migrating.md. Exit status 1 when a row was refused or is a conflict.
        """) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one file") }
        guard let format = ImportFormat(rawValue: a.value("--from") ?? "linkrunway") else {
            throw UsageError("--from must be " + ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let file = a.positionals[0]
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        let rows: [ImportRow]
        do {
            rows = try format.rows(String(decoding: data, as: UTF8.self))
        } catch {
            throw CommandFailure("\(file): \(error)")
        }
        let client = try APIClient(a, c)
        let workspace = try await client.workspace(a, c)
        var report = rows.map { row in
            ReportRow(line: row.line, sourceURL: row.sourceURL, path: row.link?.path, status: row.skipped == nil ? "refused" : "skipped",
                      error: row.problem.map { ErrorBody.Detail(code: ErrorCode.invalidField, message: $0) },
                      notes: row.notes.isEmpty ? (row.skipped.map { [$0] }) : row.notes)
        }
        let sendable = rows.indices.compactMap { index in rows[index].link.map { (index, $0) } }
        for batch in try batches(sendable.map { index, found in
            var link = found
            link.domain = link.domain ?? a.value("--domain")
            link.appId = link.appId ?? a.value("--app")
            return (index, link)
        }) {
            let request = ImportLinksRequest(workspaceId: workspace, dryRun: a.flag("--dry-run"), update: a.flag("--update"), links: batch.map(\.1))
            let answer = try await client.post("/v1/links/import", request, as: ImportLinksResponse.self)
            for result in answer.results {
                let index = batch[result.index].0
                report[index].path = result.path ?? report[index].path
                report[index].status = result.status
                report[index].linkId = result.linkId
                report[index].url = result.url
                report[index].differences = result.differences
                report[index].error = result.error
            }
        }
        c.output(a.flag("--json") ? try Output.json(report) : text(report, dryRun: a.flag("--dry-run"), format: format))
        let refused = report.count { $0.status == "refused" }, conflicts = report.count { $0.status == "conflict" }
        if refused + conflicts > 0 {
            throw CommandFailure("\(refused) row(s) refused and \(conflicts) conflict(s); see the report above")
        }
    }

    /// The rows in requests of at most `batchRows` rows and about `batchBytes` of JSON, each row with its index in the file.
    static func batches(_ rows: [(Int, CreateLinkRequest)]) throws -> [[(Int, CreateLinkRequest)]] {
        var batches: [[(Int, CreateLinkRequest)]] = []
        var current: [(Int, CreateLinkRequest)] = [], bytes = 0
        for row in rows {
            let size = try JSONEncoder().encode(row.1).count
            if !current.isEmpty, current.count == batchRows || bytes + size > batchBytes {
                batches.append(current)
                current = []
                bytes = 0
            }
            current.append(row)
            bytes += size + 1
        }
        return current.isEmpty ? batches : batches + [current]
    }

    /// The table of rows, a line of counts and, for an export of another service, where its links now answer.
    static func text(_ report: [ReportRow], dryRun: Bool, format: ImportFormat) -> String {
        let table = Output.table(["LINE", "PATH", "RESULT", "DETAIL"], report.map { row in
            var detail = [row.error?.message, row.differences.map { "differs in " + $0.joined(separator: ", ") }].compactMap { $0 }
            detail += row.notes ?? []
            return [String(row.line), row.path ?? "-", row.status, detail.isEmpty ? "-" : detail.joined(separator: "; ")]
        })
        let counts = ["created", "unchanged", "updated", "conflict", "refused", "skipped"].compactMap { status -> String? in
            let count = report.count { $0.status == status }
            return count == 0 ? nil : "\(count) \(status)"
        }
        var out = table + "\n" + (dryRun ? "Dry run, nothing changed: " : "") + (counts.isEmpty ? "no rows" : counts.joined(separator: ", "))
        let hosts = Set(report.compactMap { $0.sourceURL.flatMap { URLComponents(string: $0)?.host } })
        if format != .linkrunway, !hosts.isEmpty, let url = report.compactMap(\.url).first, let host = URLComponents(string: url)?.host {
            out += "\nThese links answered on \(hosts.sorted().joined(separator: ", ")); they now answer on \(host). "
                + "The old domain stays with \(format == .firebase ? "Google" : "Branch"): see docs/migrating.md."
        }
        return out
    }
}
