import Foundation
import LinkRunwayAPI

/// A Branch links export as CSV: one link a row, its columns named by Branch's link keys: the short link (`url`) or
/// its `alias`, the analytics tags (`~campaign`, `~channel`, `~feature`, `~stage`, `~tags`, with or without the `~`),
/// the redirects (`$desktop_url`, `$ios_url`, `$android_url`, `$fallback_url`), the preview (`$og_title`,
/// `$og_description`, `$og_image_url`), the place in the app (`$deeplink_path`, else `$canonical_identifier`), and the
/// link's own data: custom keys, or a `data` column holding the JSON object Branch's API answers with.
/// https://help.branch.io/developers-hub/docs/creating-a-deep-link
enum BranchExport {
    /// Branch's own bookkeeping, which describes the export rather than the link.
    static let bookkeeping: Set<String> = ["~id", "~creation_source", "+url", "~marketing", "type", "id", "+click_timestamp",
                                           "+is_first_session", "+clicked_branch_link", "~referring_link", "date", "created", "creation_date"]
    /// Keys read into a field of their own.
    static let mapped: Set<String> = ["url", "short url", "short link", "link", "alias", "campaign", "channel", "feature", "stage", "tags",
                                      "$desktop_url", "$ios_url", "$android_url", "$fallback_url", "$og_title", "$og_description",
                                      "$og_image_url", "$deeplink_path", "$canonical_identifier", "data"]
    /// Keys with no equivalent whose reason is worth more than "no equivalent".
    static let unkept: [String: String] = [
        "$ipad_url": "no iPad destination: iPads follow the iOS one", "$marketing_title": "no field for a link's name",
        "$ios_deeplink_path": "no per-platform in-app path", "$android_deeplink_path": "no per-platform in-app path",
        "$uri_redirect_mode": "no forced app opening: the app opens through universal links",
        "$match_duration": "matching windows are the app's settings, not a link's",
    ]

    /// The row's keys: the cells, with `~` dropped from the analytics tags and the keys of a `data` object added.
    static func keys(_ fields: [String: String]) -> [String: String] {
        var keys: [String: String] = [:]
        for (column, value) in fields {
            let name = column.lowercased()
            keys[["~campaign", "~channel", "~feature", "~stage", "~tags"].contains(name) ? String(name.dropFirst()) : name] = value
        }
        if let data = fields["data"], let object = try? JSONDecoder().decode([String: JSONLiteral].self, from: Data(data.utf8)) {
            for (key, value) in object where keys[key] == nil {
                if case .string(let text) = value { keys[key] = text } else if let json = try? JSONEncoder().encode(value) {
                    keys[key] = String(decoding: json, as: UTF8.self)
                }
            }
        }
        return keys
    }

    static func rows(_ table: CSVTable) -> [ImportRow] {
        ImportRow.each(table) { line, fields in
            let keys = keys(fields)
            let source = keys["url"] ?? keys["short url"] ?? keys["short link"] ?? keys["link"]
            var row = ImportRow(line: line, sourceURL: source)
            guard let path = source.flatMap(Cell.path(ofShortLink:)) ?? keys["alias"] else {
                row.problem = "no url or alias"
                return row
            }
            var link = CreateLinkRequest(path: path, campaign: keys["campaign"], channel: keys["channel"], feature: keys["feature"])
            let fallback = keys["$fallback_url"]
            link.destinations = Cell.destinations(web: keys["$desktop_url"] ?? fallback, iosURL: keys["$ios_url"] ?? fallback,
                                                  androidURL: keys["$android_url"] ?? fallback)
            link.preview = Cell.preview(title: keys["$og_title"], description: keys["$og_description"], image: keys["$og_image_url"])
            link.appPath = (keys["$deeplink_path"] ?? keys["$canonical_identifier"]).map(Cell.appPath)
            var metadata: [String: JSONLiteral] = [:]
            for key in ["stage", "tags"] {
                if let value = keys[key] {
                    metadata[key] = .string(value)
                    row.notes.append("~\(key) kept in metadata.\(key)")
                }
            }
            for (key, value) in keys.sorted(by: { $0.key < $1.key })
            where !mapped.contains(key) && !bookkeeping.contains(key) && !UTM.columns.contains(key) {
                if let first = key.first, "$~+".contains(first) {
                    row.notes.append("\(key)=\(value): " + (unkept[key] ?? "no equivalent"))
                } else {
                    metadata[key] = .string(value)   // the link's own data, which the app gets when it resolves the link
                }
            }
            link.metadata = metadata.isEmpty ? nil : metadata
            UTM.keep(keys, in: &link)
            row.link = link
            return row
        }
    }
}
