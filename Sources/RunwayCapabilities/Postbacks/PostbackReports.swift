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

    static func stored(_ row: SQLRow) throws -> StoredPostback {
        let decoded = try row.optionalString("decoded").flatMap { try? StrictJSONDecoder().decode([DecodedConversion].self, from: Array($0.utf8)) }
        return StoredPostback(
            id: try row.string("id"), framework: try row.string("framework"), status: try row.string("status"),
            reason: try row.optionalString("reason"), detail: try row.optionalString("detail"), receivedAt: Timestamp.iso(try row.int("received_at")),
            appId: try row.optionalString("app_id"), version: try row.optionalString("version"), kid: try row.optionalString("kid"),
            environment: try row.string("environment"), adNetworkId: try row.optionalString("ad_network_id"),
            campaignId: try row.optionalString("campaign_id"), sourceIdentifier: try row.optionalString("source_identifier"),
            campaign: try row.optionalString("campaign"), appStoreId: try row.optionalString("app_store_id"),
            transactionId: try row.optionalString("transaction_id"), window: Int(try row.int("sequence_index")) + 1,
            didWin: try row.optionalInt("did_win").map { $0 != 0 }, redownload: try row.optionalInt("redownload").map { $0 != 0 },
            conversionType: try row.optionalString("conversion_type"), fidelityType: try row.optionalInt("fidelity_type").map(Int.init),
            sourceAppId: try row.optionalString("source_app_id"), sourceDomain: try row.optionalString("source_domain"),
            fineValue: try row.optionalInt("fine_value").map(Int.init), coarseValue: try row.optionalString("coarse_value"),
            countryCode: try row.optionalString("country_code"), interactionType: try row.optionalString("interaction_type"),
            tier: try row.optionalString("tier"), schemaVersion: try row.optionalInt("schema_version").map(Int.init), decoded: decoded,
            marketplace: try row.optionalString("marketplace"), adNetworkName: AppleAdsPostbacks.networkName(try row.optionalString("ad_network_id")),
            placement: AppleAdsPostbacks.placement(adNetworkId: try row.optionalString("ad_network_id"),
                                                   identifier: try row.optionalString("campaign_id") ?? row.optionalString("source_identifier"))?.rawValue)
    }

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
        for group in try db.query("""
            SELECT \(raw: key) AS k, status, did_win, sequence_index, conversion_type, redownload,
                   CASE WHEN fine_value IS NOT NULL THEN 1 ELSE 0 END AS has_fine,
                   CASE WHEN coarse_value IS NOT NULL THEN 1 ELSE 0 END AS has_coarse, COUNT(*) AS n
            FROM postbacks WHERE \(scope)
            GROUP BY \(raw: key), status, did_win, sequence_index, conversion_type, redownload,
                     CASE WHEN fine_value IS NOT NULL THEN 1 ELSE 0 END, CASE WHEN coarse_value IS NOT NULL THEN 1 ELSE 0 END
            """) {
            let name = label(group["k"], groupBy: groupBy)
            let n = Int(try group.int("n"))
            var row = rows[name] ?? PostbackReportRow(key: name)
            switch try group.string("status") {
            case "invalid": row.invalid += n
            case "duplicate": row.duplicates += n
            default:
                row.postbacks += n
                let winning = try group.optionalInt("did_win").map { $0 != 0 } ?? true
                let type = try group.optionalString("conversion_type")
                let hasFine = try group.int("has_fine") == 1, hasCoarse = try group.int("has_coarse") == 1
                if !winning {
                    row.nonWinning += n
                } else {
                    // Apple's JSON spells it `re-engagement`, its prose `reengagement`; both are read.
                    if type == "re-engagement" || type == "reengagement" {
                        row.reengagements += n
                    } else if try group.int("sequence_index") == 0 {
                        row.installs += n
                        if try group.optionalInt("redownload") == 1 { row.redownloads += n }
                    }
                    if !hasFine && !hasCoarse { row.withheld += n }
                }
                if hasFine { row.fineValues += n } else if hasCoarse { row.coarseValues += n }
            }
            rows[name] = row
        }
        // Invalid postbacks past each day's sample were only counted: by day and framework, nothing else is known of them
        // (so they count as production).
        if appId == nil, environment == "production", groupBy == "day" || groupBy == "framework" {
            for counted in try db.query("""
                SELECT \(raw: groupBy == "day" ? "day" : "framework") AS k, SUM(count) AS n FROM postback_rejections
                WHERE scope = \(workspaceId) AND day >= \(from / 86_400_000) AND day <= \((to - 1) / 86_400_000)
                GROUP BY \(raw: groupBy == "day" ? "day" : "framework")
                """) {
                let name = label(counted["k"], groupBy: groupBy)
                var row = rows[name] ?? PostbackReportRow(key: name)
                row.invalid += Int(try counted.int("n"))
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
    static let tierColumns: [(column: String, field: WritableKeyPath<PostbackMissingFields, MissingFieldCount> & Sendable, csv: String)] = [
        ("lacks_country", \.countryCode, "country_code"), ("lacks_marketplace", \.marketplaceIdentifier, "marketplace_identifier"),
        ("lacks_source_digits", \.sourceIdentifierDigits, "source_identifier_digits"), ("lacks_publisher", \.publisher, "publisher"),
    ]

    /// Adds to each group how many of its verified postbacks lack each field Apple withholds at lower postback data
    /// tiers, out of those whose format has it.
    static func countMissingFields(_ db: any SQLExecutor, scope: SQL, key: String, groupBy: String, into rows: inout [String: PostbackReportRow]) throws {
        let sums = tierColumns.map { "SUM(\($0.column)) AS \($0.column)_missing, COUNT(\($0.column)) AS \($0.column)_of" }.joined(separator: ", ")
        for group in try db.query("""
            SELECT \(raw: key) AS k, \(raw: sums) FROM postbacks WHERE \(scope) AND status = 'valid' GROUP BY \(raw: key)
            """) {
            let name = label(group["k"], groupBy: groupBy)
            var row = rows[name] ?? PostbackReportRow(key: name)
            for (column, field, _) in tierColumns {
                let counted = row.missingFields[keyPath: field]
                row.missingFields[keyPath: field] = MissingFieldCount(
                    missing: try Checked.add(counted.missing, try group.optionalInt("\(column)_missing") ?? 0),
                    outOf: try Checked.add(counted.outOf, try group.int("\(column)_of")))
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
