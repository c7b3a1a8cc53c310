import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// The frame around every console page: head, navigation, workspace choice, sign-out; and charts drawn as SVG.
enum ConsoleLayout {
    static let sections: [(path: String, title: String)] = [
        ("/console", "Overview"), ("/console/links", "Links"), ("/console/schema", "Conversion schema"),
        ("/console/postbacks", "Postbacks"), ("/console/apple-ads", "Apple Ads"), ("/console/affiliates", "Affiliates"),
        ("/console/webhooks", "Webhooks"), ("/console/ad-networks", "Ad networks"), ("/console/keys", "Keys"),
        ("/console/users", "Users"), ("/console/installs", "Installs"),
    ]

    static func head(_ title: String) -> Markup {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title) · LinkRunway</title>
        <link rel="stylesheet" href="/console/static/console.css">
        <script src="/console/static/console.js" defer></script>
        </head>
        """
    }

    /// A page without navigation (sign-in, errors).
    static func bare(title: String, status: Int, body: Markup) -> HTTPResponse {
        let html: Markup = """
            \(head(title))
            <body>
            <header class="bar"><a class="brand" href="/console">LinkRunway</a></header>
            <main id="main" class="narrow"><h1>\(title)</h1>\(body)</main>
            </body>
            </html>
            """
        return .text(html.html, status: status, contentType: "text/html; charset=utf-8")
    }

    static func page(_ page: ConsolePage, context: ConsoleContext) -> HTTPResponse {
        let path = context.request.path
        let current = sections.last { path == $0.path || ($0.path != "/console" && path.hasPrefix($0.path)) }?.path ?? "/console"
        let nav = Markup.join(sections.map { section in
            let here: Markup = section.path == current ? " aria-current=\"page\"" : ""
            return "<li><a href=\"\(context.link(section.path))\"\(here)>\(section.title)</a></li>"
        })
        let chooser: Markup
        if context.workspaces.count > 1 {
            let options = Markup.join(context.workspaces.map { workspace in
                let selected: Markup = workspace.id == context.workspace.id ? " selected" : ""
                return "<option value=\"\(workspace.id)\"\(selected)>\(workspace.name)</option>"
            })
            chooser = """
                <form method="get" action="\(current)" class="inline">
                <label for="ws">Workspace</label> <select id="ws" name="ws">\(options)</select> <button type="submit">Show</button>
                </form>
                """
        } else {
            chooser = "<span class=\"workspace\">\(context.workspace.name)</span>"
        }
        let notice: Markup = context.request.queryValue("notice").map { "<p class=\"notice\" role=\"status\">\($0)</p>" } ?? ""
        let html: Markup = """
            \(head(page.title))
            <body data-tz="\(context.format.zoneName)">
            <a class="skip" href="#main">Skip to the content</a>
            <header class="bar">
              <a class="brand" href="\(context.link("/console"))">LinkRunway</a>
              \(chooser)
              <form method="post" action="/console/logout" class="inline signout">\(context.csrfField)
                <span class="who">\(context.session.label)</span> <button type="submit">Sign out</button>
              </form>
            </header>
            <nav aria-label="Sections"><ul>\(nav)</ul></nav>
            <main id="main">
            <h1>\(page.title)</h1>
            \(notice)
            \(page.body)
            <p class="hint">Times are shown in \(context.format.zoneName).</p>
            </main>
            </body>
            </html>
            """
        return .text(html.html, status: page.status, contentType: "text/html; charset=utf-8")
    }

    /// A table with a header row; cells are already markup.
    static func table(_ headers: [String], _ rows: [[Markup]], caption: String? = nil, numericFrom: Int = Int.max) -> Markup {
        let head = Markup.join(headers.enumerated().map { index, title in
            index >= numericFrom ? "<th scope=\"col\" class=\"num\">\(title)</th>" : "<th scope=\"col\">\(title)</th>"
        })
        let body = Markup.join(rows.map { row in
            "<tr>\(Markup.join(row.enumerated().map { index, cell in index >= numericFrom ? "<td class=\"num\">\(cell)</td>" : "<td>\(cell)</td>" }))</tr>"
        })
        let caption: Markup = caption.map { "<caption>\($0)</caption>" } ?? ""
        return "<div class=\"scroll\"><table>\(caption)<thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>"
    }

    /// An empty state: what is missing and what to do.
    static func empty(_ text: String, _ next: Markup = "") -> Markup {
        "<div class=\"empty\"><p>\(text)</p>\(next)</div>"
    }

    /// A form field with its label and, when the API refused it, the reason beside it.
    static func field(_ name: String, _ label: String, value: String?, error: ConsoleAPIError?, errorField: String? = nil,
                      type: String = "text", hint: String? = nil, required: Bool = false) -> Markup {
        let failed = error.map { ($0.field ?? "") == (errorField ?? name) } ?? false
        let describedBy: Markup = failed ? " aria-invalid=\"true\" aria-describedby=\"\(name)-error\"" : ""
        let requiredAttribute: Markup = required ? " required" : ""
        let message: Markup = failed ? "<span class=\"error\" id=\"\(name)-error\">\(error!.reason)</span>" : ""
        let hintMarkup: Markup = hint.map { "<span class=\"hint\">\($0)</span>" } ?? ""
        return """
            <div class="field"><label for="\(name)">\(label)</label>
            <input id="\(name)" name="\(name)" type="\(type)" value="\(value ?? "")"\(describedBy)\(requiredAttribute)>\(hintMarkup)\(message)</div>
            """
    }

    /// A line chart of daily series, drawn by the server as SVG (no script needed).
    static func chart(labels: [String], series: [(name: String, style: String, values: [Double])], title: String) -> Markup {
        let width = 720.0, height = 220.0, left = 48.0, bottom = 28.0, top = 12.0, right = 12.0
        let maximum = max(1, series.flatMap(\.values).max() ?? 1)
        let step = labels.count > 1 ? (width - left - right) / Double(labels.count - 1) : 0
        func x(_ i: Int) -> Double { left + Double(i) * step }
        func y(_ v: Double) -> Double { top + (height - top - bottom) * (1 - v / maximum) }
        let lines = Markup.join(series.map { item in
            let points = item.values.enumerated().map { String(format: "%.1f,%.1f", x($0.offset), y($0.element)) }.joined(separator: " ")
            return "<polyline class=\"\(item.style)\" fill=\"none\" stroke-width=\"2\" points=\"\(points)\"><title>\(item.name)</title></polyline>"
        })
        let ticks = Markup.join([0, 0.5, 1].map { fraction in
            let value = maximum * fraction
            return "<text x=\"\(Int(left - 6))\" y=\"\(Int(y(value) + 4))\" text-anchor=\"end\">\(formatTick(value))</text><line class=\"grid\" x1=\"\(Int(left))\" x2=\"\(Int(width - right))\" y1=\"\(Int(y(value)))\" y2=\"\(Int(y(value)))\"/>"
        })
        let first = labels.first ?? "", last = labels.last ?? ""
        let axis: Markup = """
            <text x="\(Int(left))" y="\(Int(height - 8))">\(first)</text>
            <text x="\(Int(width - right))" y="\(Int(height - 8))" text-anchor="end">\(last)</text>
            """
        let legend = Markup.join(series.map { "<li><span class=\"swatch \($0.style)\"></span>\($0.name)</li>" })
        return """
            <figure class="chart">
            <svg viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(title)">\(ticks)\(lines)\(axis)</svg>
            <figcaption><ul class="legend">\(legend)</ul></figcaption>
            </figure>
            """
    }

    private static func formatTick(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.1fk", value / 1000) : value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
