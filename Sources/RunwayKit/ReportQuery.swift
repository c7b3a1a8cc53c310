import Foundation
import LinkRunwayAPI
import RunwayHTTP

/// The query every report takes: a time range (default the last 30 days), one grouping, the workspace (the key's
/// own, or any for admin keys) and optionally one app; and the answer as JSON or, for `Accept: text/csv`, CSV.
package struct ReportQuery {
    package let workspaceId: String
    package let appId: String?
    package let from: Int64
    package let to: Int64
    package let groupBy: String

    package init(_ request: HTTPRequest, principal: Principal, now: Int64, groupings: [String]) throws {
        from = try Validate.timeOrDay(request.queryValue("from"), field: "from", day: .start) ?? now - 30 * 86_400_000
        to = try Validate.timeOrDay(request.queryValue("to"), field: "to", day: .end) ?? now + 1
        guard from < to else { throw RequestError.invalidQuery("from must be before to", field: "from") }
        groupBy = request.queryValue("groupBy") ?? groupings[0]
        guard groupings.contains(groupBy) else {
            throw RequestError.invalidQuery("groupBy must be one of \(groupings.joined(separator: ", "))", field: "groupBy")
        }
        let workspaceId = try principal.actingWorkspace(request.queryValue("workspaceId"), inQuery: true)
        self.workspaceId = workspaceId
        appId = request.queryValue("appId")
    }

    package static func documentation(_ groupings: [String]) -> [QueryParameterDoc] {
        [
            QueryParameterDoc("from", "Start (inclusive; default 30 days ago): an ISO 8601 time, or a UTC day such as 2026-11-01 (its start)."),
            QueryParameterDoc("to", "End (exclusive; default now): an ISO 8601 time, or a UTC day such as 2026-11-30 (through its end)."),
            QueryParameterDoc("groupBy", "\(groupings[0]) (default), \(groupings.dropFirst().joined(separator: ", ")); days are UTC."),
            QueryParameterDoc("appId", "Only this app."),
            QueryParameterDoc("workspaceId", "The workspace (admin keys)."),
        ]
    }

    package func respond<Report: Encodable>(_ request: HTTPRequest, _ report: Report, csv: () -> String, filename: String) throws -> HTTPResponse {
        try Self.respond(request, report, csv: csv, filename: filename)
    }

    /// The report as JSON, or as CSV (a download named `filename`) when the caller's `Accept` asks for `text/csv`.
    package static func respond<Report: Encodable>(_ request: HTTPRequest, _ report: Report, csv: () -> String, filename: String) throws -> HTTPResponse {
        guard request.headers["Accept"]?.contains("text/csv") == true else { return try .json(report) }
        var response = HTTPResponse.text(csv(), contentType: "text/csv; charset=utf-8")
        response.headers.set("Content-Disposition", "attachment; filename=\"\(filename)\"")
        return response
    }

    /// RFC 4180 quoting, and a leading quote for cells a spreadsheet would run as a formula.
    package static func escape(_ cell: String) -> String {
        var text = cell
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
