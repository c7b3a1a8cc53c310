import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// Stored postbacks as the API shows them, and the postback report.
enum PostbackReports {
    static let groupings = ["day", "network", "campaign", "sourceIdentifier", "window", "value", "conversion", "tier", "country", "placement",
                            "framework"]
    /// The report's two views: `production` (the default) never counts a development postback, and `development`
    /// (the sandbox view) counts nothing else.
    static let environments = ["production", "development"]

    /// The SQL that buckets a postback.
    static func key(_ groupBy: String) -> String {
        switch groupBy {
        case "day": return "(received_at / 86400000)"
        case "network": return "ad_network_id"
        case "campaign": return "COALESCE(campaign, ad_network_id || ':' || COALESCE(source_identifier, campaign_id))"
        case "sourceIdentifier": return "COALESCE(source_identifier, campaign_id)"
        case "window": return "(sequence_index + 1)"
        case "value":
            return "CASE WHEN fine_value IS NOT NULL THEN 'fine:' || CAST(fine_value AS TEXT) WHEN coarse_value IS NOT NULL THEN 'coarse:' || coarse_value ELSE 'none' END"
        case "conversion": return "decoded"
        case "tier": return "tier"
        case "country": return "country_code"
        // Apple Ads' number; the placement it stands for is named in Swift (`label`), so every number of one is one row.
        case "placement": return "CASE WHEN ad_network_id = '\(AppleAdsPostbacks.adNetworkId)' THEN COALESCE(campaign_id, source_identifier) END"
        default: return "framework"
        }
    }

    static func report(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, groupBy: String,
                       environment: String = "production") throws -> PostbackReport {
        let appFilter: SQL = appId.map { " AND app_id = \($0)" } ?? ""
        let scope: SQL = """
            workspace_id = \(workspaceId) AND environment = \(environment) AND received_at >= \(from) AND received_at < \(to)\(appFilter)
            """
        let key = key(groupBy)
        var rows: [String: PostbackReportRow] = [:]
        for group in try PostbackQueries.reportGroups(db, scope: scope, key: key) {
            let name = label(group.k, groupBy: groupBy)
            let n = group.n
            var row = rows[name] ?? PostbackReportRow(key: name)
            switch group.status {
            case "invalid": row.invalid += n
            case "duplicate": row.duplicates += n
            default:
                row.postbacks += n
                if !(group.didWin ?? true) {
                    row.nonWinning += n
                } else {
                    // Apple's JSON spells it `re-engagement`, its prose `reengagement`; both are read.
                    if group.conversionType == "re-engagement" || group.conversionType == "reengagement" {
                        row.reengagements += n
                    } else if group.sequenceIndex == 0 {
                        row.installs += n
                        if group.redownload == true { row.redownloads += n }
                    }
                    if !group.hasFine && !group.hasCoarse { row.withheld += n }
                }
                if group.hasFine { row.fineValues += n } else if group.hasCoarse { row.coarseValues += n }
            }
            rows[name] = row
        }
        // Invalid postbacks past each day's sample were only counted: by day and framework, nothing else is known of them
        // (so they count as production).
        if appId == nil, environment == "production", groupBy == "day" || groupBy == "framework" {
            for counted in try PostbackQueries.rejectionCounts(db, workspaceId: workspaceId, byDay: groupBy == "day",
                                                               fromDay: from / 86_400_000, toDay: (to - 1) / 86_400_000) {
                let name = label(counted.k, groupBy: groupBy)
                var row = rows[name] ?? PostbackReportRow(key: name)
                row.invalid += counted.n
                rows[name] = row
            }
        }
        try countMissingFields(db, scope: scope, key: key, groupBy: groupBy, into: &rows)
        let labelled = rows.values.map { row in
            var row = row
            row.label = label(ofKey: row.key, groupBy: groupBy)
            return row
        }
        return PostbackReport(from: Timestamp.iso(from), to: Timestamp.iso(to), groupBy: groupBy, environment: environment,
                              rows: labelled.sorted { $0.key < $1.key })
    }

    /// The tier-controlled columns (`0060_postback_withheld_fields`: 1 where Apple left the field out, 0 where it is there,
    /// NULL where the postback's format has no such field), where each goes in a row, and its name in CSV.
    /// `sums` names the column's two sums in `PostbackRows.MissingFieldSums`.
    static let tierColumns: [(column: String, field: WritableKeyPath<PostbackMissingFields, MissingFieldCount> & Sendable,
                              sums: KeyPath<PostbackRows.MissingFieldSums, (missing: Int64?, of: Int64)> & Sendable, csv: String)] = [
        ("lacks_country", \.countryCode, \.country, "country_code"),
        ("lacks_marketplace", \.marketplaceIdentifier, \.marketplace, "marketplace_identifier"),
        ("lacks_source_digits", \.sourceIdentifierDigits, \.sourceDigits, "source_identifier_digits"),
        ("lacks_publisher", \.publisher, \.publisher, "publisher"),
    ]

    /// Adds to each group how many of its verified postbacks lack each field Apple withholds at lower postback data
    /// tiers, out of those whose format has it.
    static func countMissingFields(_ db: any SQLExecutor, scope: SQL, key: String, groupBy: String, into rows: inout [String: PostbackReportRow]) throws {
        for group in try PostbackQueries.missingFieldSums(db, scope: scope, key: key) {
            let name = label(group.k, groupBy: groupBy)
            var row = rows[name] ?? PostbackReportRow(key: name)
            for (_, field, sums, _) in tierColumns {
                let counted = row.missingFields[keyPath: field], summed = group[keyPath: sums]
                row.missingFields[keyPath: field] = MissingFieldCount(missing: try Checked.add(counted.missing, summed.missing ?? 0),
                                                                      outOf: try Checked.add(counted.outOf, summed.of))
            }
            rows[name] = row
        }
    }

    /// What a group's key stands for, when LinkRunway knows: Apple Ads' network id, its placements, and a campaign
    /// named by Apple Ads' number.
    static func label(ofKey key: String, groupBy: String) -> String? {
        let prefix = AppleAdsPostbacks.adNetworkId + ":"
        switch groupBy {
        case "network": return AppleAdsPostbacks.networkName(key)
        case "placement": return AppleAdsPostbacks.Placement(rawValue: key)?.label
        case "campaign" where key.hasPrefix(prefix):
            return AppleAdsPostbacks.placement(adNetworkId: AppleAdsPostbacks.adNetworkId, identifier: String(key.dropFirst(prefix.count)))?.label
        default: return nil
        }
    }

    static func label(_ value: SQLValue, groupBy: String) -> String {
        switch value {
        case .null: return "(none)"
        case .text(let number) where groupBy == "placement": return placementName(number)
        case .integer(let number) where groupBy == "placement": return placementName(String(number))
        case .integer(let day) where groupBy == "day": return String(Timestamp.iso(day * 86_400_000).prefix(10))
        case .real(let day) where groupBy == "day": return String(Timestamp.iso(Int64(day) * 86_400_000).prefix(10))
        case .integer(let n): return String(n)
        case .text(let json) where groupBy == "conversion":
            return (try? StrictJSONDecoder().decode([DecodedConversion].self, from: Array(json.utf8))).map(PostbackDecoding.label) ?? json
        case .text(let text): return text
        default: return "(none)"
        }
    }

    /// The placement an Apple Ads number stands for.
    static func placementName(_ number: String) -> String {
        AppleAdsPostbacks.placement(adNetworkId: AppleAdsPostbacks.adNetworkId, identifier: number)?.rawValue ?? number
    }

    /// Columns added after the first release's go last, so that a reader of those keeps working.
    static func csv(_ report: PostbackReport) -> String {
        let missingHeader = tierColumns.flatMap { ["\($0.csv)_missing", "\($0.csv)_of", "\($0.csv)_share"] }
        var lines = [([report.groupBy, "postbacks", "installs", "redownloads", "reengagements", "non_winning", "withheld", "fine_values",
                       "coarse_values", "invalid", "duplicates", "label"] + missingHeader).joined(separator: ",")]
        for row in report.rows {
            let counts = [row.postbacks, row.installs, row.redownloads, row.reengagements, row.nonWinning, row.withheld, row.fineValues,
                          row.coarseValues, row.invalid, row.duplicates].map(String.init)
            let missing = tierColumns.flatMap { entry -> [String] in
                let count = row.missingFields[keyPath: entry.field]
                return [String(count.missing), String(count.outOf), String(count.share)]
            }
            lines.append(([ReportQuery.escape(row.key)] + counts + [ReportQuery.escape(row.label ?? "")] + missing).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
