import Foundation
import LinkRunwayAPI

/// The CSV Google exports of a project's Dynamic Links (one file per domain): the short link, then the parameters of
/// the long link (`link`, `apn`, `ibi`, `isi`, `ifl`, `ofl`, `efr`, `st`, `sd`, `si`, `utm_*`…), whether it is
/// archived, its name and when it was made. A column is known by the parameter its header names in parentheses
/// (`Deep link (link)`), else by the header itself (`Short link`, or a bare `apn`), in any case.
/// https://firebase.google.com/support/guides/export-dynamic-links
enum FirebaseExport {
    /// What has no equivalent in a link, by parameter, with the reason reported on the row.
    static let unkept: [String: String] = [
        "amv": "no minimum Android version", "imv": "no minimum iOS version",
        "ius": "no custom URL scheme: the app opens through universal links",
        "ipfl": "no iPad destination: iPads follow the iOS one", "ipbi": "no iPad bundle ID: iPads open the import's app",
        "at": "App Store affiliate token not kept", "ct": "App Store campaign token not kept",
        "mt": "App Store media type not kept", "pt": "App Store provider token not kept",
        "name": "no field for a link's name",
    ]
    /// Columns read without a field of their own: the bundle ID and package name name the app (the import's), and the
    /// creation time is the export's, not the link's.
    static let understood = Set(["short", "link", "apn", "afl", "ibi", "ifl", "isi", "efr", "ofl", "st", "sd", "si", "archived", "created"]
                                + UTM.columns)

    /// The parameter a header names.
    static func parameter(_ header: String) -> String {
        let text = header.lowercased().trimmingCharacters(in: .whitespaces)
        if let open = text.lastIndex(of: "("), let close = text.lastIndex(of: ")"), open < close {
            // trap-safe: open < close, both indices of text
            return String(text[text.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
        }
        switch text {
        case "short link", "short_link", "shortlink", "short url": return "short"
        case "deep link": return "link"
        case "archived?", "archived": return "archived"
        case "link name", "name": return "name"
        case "creation timestamp", "created", "creation time": return "created"
        default:
            if text.hasPrefix("itunes connect ") { return String(text.dropFirst("itunes connect ".count)) }
            return text
        }
    }

    static func rows(_ table: CSVTable) -> [ImportRow] {
        var renamed = table
        renamed.header = table.header.map(parameter)
        return ImportRow.each(renamed) { line, fields in
            var row = ImportRow(line: line, sourceURL: fields["short"])
            guard let short = fields["short"], let path = Cell.path(ofShortLink: short) else {
                row.problem = "no short link with a path"
                return row
            }
            if let archived = fields["archived"], (try? Cell.flag(archived, column: "archived")) == true {
                row.skipped = "archived in Dynamic Links"
                return row
            }
            var link = CreateLinkRequest(path: path)
            if let deepLink = fields["link"] {
                // The app used to get the whole deep link; it keeps it in metadata, and its path is the in-app path.
                let components = URLComponents(string: deepLink)
                link.appPath = Cell.appPath((components?.percentEncodedPath ?? "") + (components?.percentEncodedQuery.map { "?" + $0 } ?? ""))
                link.metadata = ["link": .string(deepLink)]
            }
            // Without afl, Android went to the package's Play Store page; without ofl, desktops opened the deep link.
            let android = fields["afl"] ?? fields["apn"].map { "https://play.google.com/store/apps/details?id=" + $0 }
            link.destinations = Cell.destinations(web: fields["ofl"] ?? fields["link"], iosURL: fields["ifl"], iosAppStoreId: fields["isi"],
                                                  androidURL: android)
            link.preview = Cell.preview(title: fields["st"], description: fields["sd"], image: fields["si"])
            // Without efr=1, Dynamic Links showed a page before the store; the interstitial is ours.
            link.interstitial = (try? Cell.flag(fields["efr"], column: "efr")) != true
            UTM.keep(fields, in: &link)
            for (column, value) in fields.sorted(by: { $0.key < $1.key }) where !understood.contains(column) {
                row.notes.append("\(column)=\(value): " + (unkept[column] ?? "no equivalent"))
            }
            row.link = link
            return row
        }
    }
}
