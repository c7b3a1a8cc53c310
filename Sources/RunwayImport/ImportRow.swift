import Foundation
import LinkRunwayAPI

/// The files `linkrunway link import` and the console read: our own columns, a Firebase Dynamic Links export, or a
/// Branch links export.
public enum ImportFormat: String, Sendable, CaseIterable {
    case linkrunway, firebase, branch

    /// Reads `text` into one row per record, in order.
    public func rows(_ text: String) throws(ImportFileError) -> [ImportRow] {
        let table = try CSVTable(text)
        switch self {
        case .linkrunway: return try LinkRunwayColumns.rows(table)
        case .firebase: return FirebaseExport.rows(table)
        case .branch: return BranchExport.rows(table)
        }
    }
}

/// One record of an import file: the link it defines, or why it defines none, and what it held that has no place in a
/// link (reported, never dropped silently).
public struct ImportRow: Sendable {
    /// The line of the file the record starts on (the header is line 1).
    public var line: Int
    /// The link as the server takes it; nil when `problem` or `skipped` says why there is none.
    public var link: CreateLinkRequest?
    /// Why the record cannot be a link, found before the server sees it.
    public var problem: String?
    /// Why the record was left out on purpose (a link archived in Dynamic Links).
    public var skipped: String?
    /// Values kept somewhere other than their own field, or not kept at all, each with its column.
    public var notes: [String] = []
    /// The link the record had before (its short link), when the file says.
    public var sourceURL: String?

    public init(line: Int, link: CreateLinkRequest? = nil, problem: String? = nil, skipped: String? = nil, notes: [String] = [],
                sourceURL: String? = nil) {
        self.line = line
        self.link = link
        self.problem = problem
        self.skipped = skipped
        self.notes = notes
        self.sourceURL = sourceURL
    }

    /// The row for each record of `table`, made by `make`; a record that does not fit its table becomes a problem.
    static func each(_ table: CSVTable, _ make: (Int, [String: String]) throws -> ImportRow) -> [ImportRow] {
        table.records.map { record in
            do {
                return try make(record.line, try table.fields(record))
            } catch {
                return ImportRow(line: record.line, problem: "\(error)")
            }
        }
    }
}

/// UTM parameters: `utm_source` and the rest become the link's UTM fields, which are added to its web destinations
/// and reported; `utm_campaign` also becomes the link's campaign when the row has none.
enum UTM {
    static let columns = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"]

    static func keep(_ fields: [String: String], in link: inout CreateLinkRequest) {
        let utm = LinkUTM(source: fields["utm_source"], medium: fields["utm_medium"], campaign: fields["utm_campaign"],
                          term: fields["utm_term"], content: fields["utm_content"])
        guard utm != LinkUTM() else { return }
        link.utm = utm
        if link.campaign == nil, let campaign = fields["utm_campaign"] { link.campaign = campaign }
    }
}

/// Cell values shared by the formats.
public enum Cell {
    /// on/off, true/false, yes/no, 1/0.
    static func flag(_ value: String?, column: String) throws -> Bool? {
        guard let value else { return nil }
        switch value.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw ImportFileError("\(column) must be on or off, not \(value)")
        }
    }

    /// A day (`2026-12-31`) is the first moment after it in UTC, so the whole day is kept; any other text is passed on
    /// for the server to check.
    public static func endOfDayOrTime(_ text: String) -> String {
        guard text.utf8.count == 10, let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) else { return text }
        var formatter = Date.ISO8601FormatStyle()
        formatter.timeZone = .gmt
        return day.addingTimeInterval(86_400).formatted(formatter)
    }

    /// The path of a short link (`https://example.page.link/summer` → `summer`), or nil when `url` has none.
    static func path(ofShortLink url: String) -> String? {
        guard let components = URLComponents(string: url), components.host != nil else { return nil }
        let path = String(components.percentEncodedPath.drop { $0 == "/" })
        return path.isEmpty ? nil : path
    }

    /// A place in the app: `path` with a leading `/`.
    static func appPath(_ path: String) -> String { path.hasPrefix("/") ? path : "/" + path }

    /// The destinations of the cells given, or nil when all are empty.
    static func destinations(web: String?, iosURL: String?, iosAppStoreId: String? = nil, androidURL: String?) -> LinkDestinations? {
        let ios = iosURL != nil || iosAppStoreId != nil ? LinkDestinations.IOS(appStoreId: iosAppStoreId, url: iosURL) : nil
        let destinations = LinkDestinations(ios: ios, android: androidURL.map(LinkDestinations.Android.init(url:)), web: web)
        return destinations == LinkDestinations() ? nil : destinations
    }

    /// The preview of title, description and image cells, or nil when all are empty.
    static func preview(title: String?, description: String?, image: String?) -> LinkPreview? {
        title == nil && description == nil && image == nil ? nil : LinkPreview(title: title, description: description, imageUrl: image)
    }
}
