import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit

/// The HTML a link domain serves to people and to preview fetchers. Self-contained: no script or style from elsewhere,
/// and a Content-Security-Policy that lets only the page's own style and script (by hash) run, in no frame.
enum LinkPages {
    static func escape(_ text: String) -> String { Markup.escape(text) }

    static let styleText = """
        body{font:17px/1.5 -apple-system,system-ui,sans-serif;margin:0;display:flex;min-height:100vh;align-items:center;\
        justify-content:center;background:#f5f5f7;color:#1d1d1f}main{max-width:28rem;padding:2rem;text-align:center}\
        img{max-width:100%;border-radius:12px}a.button{display:block;margin:.75rem 0;padding:.9rem;border-radius:12px;\
        background:#0071e3;color:#fff;text-decoration:none;font-weight:600}a.secondary,button.secondary{background:#e8e8ed;color:#1d1d1f}\
        button.button{display:block;width:100%;margin:.75rem 0;padding:.9rem;border:0;border-radius:12px;font:inherit;font-weight:600}\
        p.hint{font-size:15px;color:#515154}
        """

    /// The interstitial's one script: "Get the app" also puts the signed click on the clipboard.
    static let clipboardScript = """
        document.getElementById("get").addEventListener("click",function(e){var a=e.currentTarget;\
        if(navigator.clipboard){e.preventDefault();navigator.clipboard.writeText(a.dataset.click).finally(function(){location.href=a.href;});}});
        """

    /// The "open in the app" page's script: "Copy the link" puts the link (with its click) on the clipboard.
    static let copyScript = """
        document.getElementById("copy").addEventListener("click",function(e){var b=e.currentTarget;\
        if(navigator.clipboard){navigator.clipboard.writeText(b.dataset.link).then(function(){b.textContent="Link copied";});}});
        """

    /// Images may come from any https host (a link's preview image is the tenant's); nothing else loads, no form posts,
    /// no base changes, and no other site may frame the page (clickjacking the "Get the app" button).
    static let contentSecurityPolicy = "default-src 'none'; style-src '\(hash(styleText))'; script-src '\(hash(clipboardScript))' '\(hash(copyScript))'; "
        + "img-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// A CSP source for inline text: `sha256-` and the base64 of its SHA-256.
    static func hash(_ text: String) -> String { "sha256-" + Data(Digest.sha256(Array(text.utf8))).base64EncodedString() }

    static func page(status: Int, title: String, head: String = "", body: String, cache: String = "no-store") -> HTTPResponse {
        var response = HTTPResponse.text("""
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
            <meta name="robots" content="noindex"><title>\(escape(title))</title>\(head)<style>\(styleText)</style></head><body><main id="main">\(body)</main></body></html>
            """, status: status, contentType: "text/html; charset=utf-8")
        response.headers.set("Cache-Control", cache)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("Content-Security-Policy", contentSecurityPolicy)
        response.headers.set("X-Frame-Options", "DENY")
        return response
    }

    /// The same page for unknown and disabled links, so a path never reveals whether it exists.
    static func notFound() -> HTTPResponse { HTTPResponse(notFoundPage) }

    private static let notFoundPage = PreparedResponse(
        page(status: 404, title: "Link not found", body: "<h1>Link not found</h1><p>This link does not exist or is no longer active.</p>"))

    static func expired(fallback: String?) -> HTTPResponse {
        let more = fallback.map { "<a class=\"button\" href=\"\(escape($0))\">Continue</a>" } ?? ""
        return page(status: 410, title: "Link expired", body: "<h1>This link has expired</h1>\(more)")
    }

    static func overLimit(fallback: String?) -> HTTPResponse {
        let more = fallback.map { "<a class=\"button\" href=\"\(escape($0))\">Continue</a>" } ?? ""
        return page(status: 410, title: "Link no longer available", body: "<h1>This link is no longer available</h1>\(more)")
    }

    static func noDestination() -> HTTPResponse {
        page(status: 404, title: "Not available", body: "<h1>Not available on this device</h1><p>Open this link on a phone.</p>")
    }

    /// Open Graph and Twitter card tags for preview fetchers (iMessage, Slack, WhatsApp, X, Facebook, LinkedIn…).
    static func preview(link: LinkRecord, url: String, appName: String?, target: String?) -> HTTPResponse {
        let title = link.previewTitle ?? appName ?? link.domain
        let description = link.previewDescription ?? ""
        var head = """
            <meta property="og:type" content="website"><meta property="og:url" content="\(escape(url))">\
            <meta property="og:title" content="\(escape(title))"><meta name="twitter:title" content="\(escape(title))">
            """
        if !description.isEmpty {
            head += "<meta property=\"og:description\" content=\"\(escape(description))\"><meta name=\"description\" content=\"\(escape(description))\"><meta name=\"twitter:description\" content=\"\(escape(description))\">"
        }
        if let image = link.previewImageURL {
            head += "<meta property=\"og:image\" content=\"\(escape(image))\"><meta name=\"twitter:image\" content=\"\(escape(image))\"><meta name=\"twitter:card\" content=\"summary_large_image\">"
        } else {
            head += "<meta name=\"twitter:card\" content=\"summary\">"
        }
        if let appName { head += "<meta property=\"og:site_name\" content=\"\(escape(appName))\">" }
        var body = "<h1>\(escape(title))</h1>"
        if !description.isEmpty { body += "<p>\(escape(description))</p>" }
        if let target { body += "<a class=\"button\" href=\"\(escape(target))\">Open</a>" }
        return page(status: 200, title: title, head: head, body: body, cache: "public, max-age=300")
    }

    /// A branded step before the App Store. The "Get the app" button also puts the signed click on the clipboard
    /// (where the page may; without script it is a plain link), for apps that read it after install.
    static func interstitial(link: LinkRecord, appName: String?, appStore: String, web: String?, signedClickId: String) -> HTTPResponse {
        let title = link.previewTitle ?? appName ?? "Get the app"
        var body = ""
        if let image = link.previewImageURL { body += "<img src=\"\(escape(image))\" alt=\"\">" }
        body += "<h1>\(escape(title))</h1>"
        if let description = link.previewDescription { body += "<p>\(escape(description))</p>" }
        body += "<a class=\"button\" id=\"get\" href=\"\(escape(appStore))\" data-click=\"\(escape(signedClickId))\">Get the app</a>"
        if let web { body += "<a class=\"button secondary\" href=\"\(escape(web))\">Continue on the web</a>" }
        body += "<script>\(clipboardScript)</script>"
        return page(status: 200, title: title, body: body)
    }

    /// What a person in an app's own browser needs to reach the app: one line saying where they are, and the ways out
    /// that work from there (docs/links.md lists them per app). `continueURL` is the link again with its click
    /// (`LinkRouting.continueMarker`), so following it from the browser is the same click.
    struct InAppBrowserExit {
        let inApp: InAppBrowser
        let android: Bool
        let continueURL: String
        /// The App Store page (iOS), or nil.
        let appStore: String?
        /// The Android app's package, which the intent opens directly.
        let androidPackage: String?
        let signedClickId: String
    }

    static func inAppBrowser(link: LinkRecord, appName: String?, exit: InAppBrowserExit) -> HTTPResponse {
        let name = appName ?? "the app"
        let title = link.previewTitle ?? appName ?? "Open in the app"
        var body = ""
        if let image = link.previewImageURL { body += "<img src=\"\(escape(image))\" alt=\"\">" }
        body += "<h1>\(escape(title))</h1>"
        body += "<p>You are in \(escape(exit.inApp.displayName))\u{2019}s own browser, which cannot open \(escape(name)).</p>"
        if exit.android {
            body += "<a class=\"button\" id=\"open\" href=\"\(escape(androidIntent(exit)))\">Open in \(escape(name))</a>"
        } else {
            body += "<a class=\"button\" id=\"open\" href=\"\(escape("x-safari-" + exit.continueURL))\">Open in Safari</a>"
            if let store = exit.appStore {
                body += "<a class=\"button secondary\" id=\"get\" href=\"\(escape(store))\" data-click=\"\(escape(exit.signedClickId))\">Get the app</a>"
            }
        }
        body += "<button class=\"button secondary\" id=\"copy\" type=\"button\" data-link=\"\(escape(exit.continueURL))\">Copy the link</button>"
        body += "<p class=\"hint\">\(escape(menuHint(exit.inApp, android: exit.android)))</p>"
        body += "<script>\(copyScript)</script>"
        if !exit.android && exit.appStore != nil { body += "<script>\(clipboardScript)</script>" }
        return page(status: 200, title: title, body: body)
    }

    /// An Android intent for the link: its app when the package is known (else whatever handles the link, the app
    /// itself when its App Links are verified), and the link in the browser when nothing can.
    static func androidIntent(_ exit: InAppBrowserExit) -> String {
        let scheme = exit.continueURL.hasPrefix("http://") ? "http" : "https"
        let rest = exit.continueURL.dropFirst(scheme.count + 3)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let fallback = exit.continueURL.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        let package = exit.androidPackage.map { "package=\($0);" } ?? ""
        return "intent://\(rest)#Intent;scheme=\(scheme);\(package)S.browser_fallback_url=\(fallback);end"
    }

    /// Where each app's own menu opens the page in the browser, as the apps showed it in 2025–26.
    static func menuHint(_ app: InAppBrowser, android: Bool) -> String {
        let browser = android ? "your browser" : "Safari"
        switch app {
        case .instagram, .facebook, .threads, .messenger:
            return "Or tap \u{22EF} at the top right and choose Open in external browser."
        case .tiktok, .linkedin, .wechat:
            return "Or tap \u{22EF} at the top right and choose to open the page in \(browser)."
        default:
            return "Or open this app\u{2019}s menu and choose to open the page in \(browser)."
        }
    }
}
