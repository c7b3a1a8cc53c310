import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// The frame around every console page: head, navigation, workspace choice, sign-out; and charts drawn as SVG.
enum ConsoleLayout {
    static let sections: [(path: String, title: String)] = [
        ("/console", "Overview"), ("/console/apps", "Apps"), ("/console/links", "Links"), ("/console/schema", "Conversion schema"),
        ("/console/postbacks", "Postbacks"), ("/console/info-plist", "Info.plist"), ("/console/apple-ads", "Apple Ads"),
        ("/console/affiliates", "Affiliates"), ("/console/retention", "Retention messages"),
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
    static func bare(title: String, status: Int, body: Markup, refused: Bool = false) -> HTTPResponse {
        let html: Markup = """
            \(head(refused ? "Error: " + title : title))
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
            \(head(page.problems.isEmpty ? page.title : "Error: " + page.title))
            <body data-tz="\(context.format.zoneName)">
            <a class="skip" href="#main">Skip to the content</a>
            <header class="bar">
              <a class="brand" href="\(context.link("/console"))">LinkRunway</a>
              \(chooser)
              <form method="post" action="/console/logout" class="inline signout">\(context.csrfField)
                <span class="who">\(context.session.label)</span> <button type="submit">Sign out</button>
              </form>
            </header>
            <nav aria-label="Sections"><details class="menu"><summary>Menu</summary><ul>\(nav)</ul></details></nav>
            <main id="main">
            <h1>\(page.title)</h1>
            \(ConsoleForms.summary(page.problems))
            \(notice)
            \(page.body)
            <p class="hint">Times are shown in \(context.format.zoneName).</p>
            </main>
            </body>
            </html>
            """
        return .text(html.html, status: page.status, contentType: "text/html; charset=utf-8")
    }

    /// The header of a column of buttons: read by screen readers, not shown.
    static let actions = "Actions"

    /// A table with a header row and a caption, in a region that scrolls sideways when it must (reachable by keyboard,
    /// named by its caption); cells are already markup. A column headed `actions` stays in view while the rest scrolls.
    static func table(_ headers: [String], _ rows: [[Markup]], caption: String, numericFrom: Int = Int.max) -> Markup {
        func kind(_ index: Int) -> Markup {
            headers.indices.contains(index) && headers[index] == actions ? " class=\"actions\"" : index >= numericFrom ? " class=\"num\"" : ""
        }
        let head = Markup.join(headers.enumerated().map { index, title in
            title == actions ? "<th scope=\"col\"\(kind(index))><span class=\"visually-hidden\">\(title)</span></th>"
                : "<th scope=\"col\"\(kind(index))>\(title)</th>"
        })
        let body = Markup.join(rows.map { row in
            "<tr>\(Markup.join(row.enumerated().map { index, cell in "<td\(kind(index))>\(cell)</td>" }))</tr>"
        })
        return """
            <div class="scroll" role="region" tabindex="0" aria-label="\(caption)"><table><caption>\(caption)</caption>\
            <thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>
            """
    }

    /// An empty state: what is missing and what to do.
    static func empty(_ text: String, _ next: Markup = "") -> Markup {
        "<div class=\"empty\"><p>\(text)</p>\(next)</div>"
    }
}
