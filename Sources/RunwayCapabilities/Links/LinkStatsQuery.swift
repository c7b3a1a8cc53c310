import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What `GET /v1/links/{id}/stats` asks for: a range of whole UTC days (`from` and `to`, both included; the last 30
/// days by default, at most `LinkStats.maxDays`), what to break the figures down by, and whether simulated installs
/// count. The figures are kept per day, so a time of day is refused rather than rounded.
struct LinkStatsQuery: Sendable, Equatable {
    /// Days since 1970 (UTC), both included.
    let firstDay: Int64
    let lastDay: Int64
    /// `day` and dimensions of `LinkStats.groupings`, in the order asked.
    let by: [String]
    let includeSimulated: Bool
    /// The day it was asked on: days after it hold no figures yet, which `LinkStatsQueries.pieces` reads on.
    let today: Int64

    static let defaultDays: Int64 = 30

    init(firstDay: Int64, lastDay: Int64, by: [String] = LinkStats.groupings, includeSimulated: Bool = false, today: Int64) {
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.by = by
        self.includeSimulated = includeSimulated
        self.today = today
    }

    init(_ request: HTTPRequest, now: Int64) throws {
        let today = now / LinkRollup.day
        let last = try Self.day(request.queryValue("to"), field: "to") ?? today
        let first = try Self.day(request.queryValue("from"), field: "from") ?? last - Self.defaultDays + 1
        guard first <= last else { throw RequestError.invalidQuery("from must be on or before to", field: "from") }
        guard last - first < Int64(LinkStats.maxDays) else {
            throw RequestError.invalidQuery("a range is at most \(LinkStats.maxDays) days; this one is \(last - first + 1)", field: "from")
        }
        var by: [String] = []
        if let text = request.queryValue("by") {
            for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard LinkStats.groupings.contains(name) else {
                    throw RequestError.invalidQuery("by takes a comma-separated list of \(LinkStats.groupings.joined(separator: ", "))", field: "by")
                }
                if !by.contains(name) { by.append(name) }
            }
        } else {
            by = LinkStats.groupings
        }
        let simulated = try request.queryValue("includeSimulated").map { value in
            guard let flag = Bool(value) else { throw RequestError.invalidQuery("includeSimulated must be true or false", field: "includeSimulated") }
            return flag
        } ?? false
        self.init(firstDay: first, lastDay: last, by: by, includeSimulated: simulated, today: today)
    }

    /// A UTC day, `2026-11-01`, as days since 1970.
    static func day(_ text: String?, field: String) throws -> Int64? {
        guard let text else { return nil }
        guard let start = ISOTime.dayStart(text) else {
            throw RequestError.invalidQuery("\(field) must be a UTC day such as 2026-11-01 (the figures are kept per day)", field: field)
        }
        return start / LinkRollup.day
    }

    static let documentation = [
        QueryParameterDoc("from", "The first UTC day, such as 2026-11-01 (default: 29 days before to)."),
        QueryParameterDoc("to", "The last UTC day, included (default: today). At most \(LinkStats.maxDays) days in all."),
        QueryParameterDoc("by", "A comma-separated list of \(LinkStats.groupings.joined(separator: ", ")) (default: all of them)."),
        QueryParameterDoc("includeSimulated", "true to count simulated installs (POST /v1/simulate/installs) and their events; left out by default.",
                          schema: "boolean"),
    ]
}
