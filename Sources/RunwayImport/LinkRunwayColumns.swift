import Foundation
import LinkRunwayAPI

/// Our own CSV columns, one link a row. Only `path` is required; a column the header names that is not one of these
/// makes the whole file an error, so a misspelt column is never ignored.
enum LinkRunwayColumns {
    /// Every column, with what it holds (the links guide shows the same table).
    static let columns: [(name: String, meaning: String)] = [
        ("path", "the link's path (required)"), ("domain", "one of the workspace's link domains (default: the import's)"),
        ("app_id", "the app it opens (default: the import's)"), ("app_path", "where the app goes, /promo/summer"),
        ("web", "https page for desktops and everything else"), ("ios_url", "https page for iOS instead of the App Store"),
        ("ios_app_store_id", "App Store ID for iOS (default: the app's)"), ("android_url", "https store URL for Android"),
        ("campaign", "campaign tag"), ("channel", "channel tag"), ("feature", "feature tag"),
        ("title", "preview title"), ("description", "preview description"), ("image", "https preview image"),
        ("expires", "ISO 8601 time, or a day (expires at its end, UTC)"), ("interstitial", "on or off"),
        ("pass_query", "on or off"), ("metadata", "a JSON object for the app"),
    ] + UTM.columns.map { ($0, "the link's UTM parameter of that name") }

    static func rows(_ table: CSVTable) throws(ImportFileError) -> [ImportRow] {
        let known = Set(columns.map(\.name))
        let unknown = table.header.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw ImportFileError("unknown column\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")); the columns are "
                                  + columns.map(\.name).joined(separator: ", "))
        }
        guard table.header.contains("path") else { throw ImportFileError("the header has no path column") }
        return ImportRow.each(table) { line, fields in
            var row = ImportRow(line: line)
            var link = CreateLinkRequest(appId: fields["app_id"], domain: fields["domain"], path: fields["path"], appPath: fields["app_path"],
                                         destinations: Cell.destinations(web: fields["web"], iosURL: fields["ios_url"],
                                                                         iosAppStoreId: fields["ios_app_store_id"], androidURL: fields["android_url"]),
                                         campaign: fields["campaign"], channel: fields["channel"], feature: fields["feature"],
                                         preview: Cell.preview(title: fields["title"], description: fields["description"], image: fields["image"]),
                                         interstitial: try Cell.flag(fields["interstitial"], column: "interstitial"),
                                         passQuery: try Cell.flag(fields["pass_query"], column: "pass_query"),
                                         expiresAt: fields["expires"].map(Cell.endOfDayOrTime))
            if let text = fields["metadata"] {
                guard let object = try? JSONDecoder().decode([String: JSONLiteral].self, from: Data(text.utf8)) else {
                    throw ImportFileError("metadata must be a JSON object")
                }
                link.metadata = object
            }
            UTM.keep(fields, in: &link)
            row.link = link
            return row
        }
    }
}
