import Foundation
import LinkRunwayAPI
import RunwayKit

/// Every field a link has, as form controls shared by the create and edit forms, and read back from a sent form.
/// Values the console cannot read (metadata that is not a JSON object, an expiry that is not a time) are all marked
/// at once; the API judges the rest.
struct LinkForm {
    var appPath: String?, campaign: String?, channel: String?, feature: String?
    var destinations = LinkDestinations()
    var preview: LinkPreview?
    var metadata: [String: JSONLiteral]?
    var expiresAt: String?
    var interstitial = false, passQuery = false, inAppBrowserPage = false
    var routing = LinkRoutingForm()

    /// Form controls and the API fields their errors come back under.
    static let fields: [String: String?] = [
        "domain": nil, "app": "appId", "path": nil, "appPath": nil, "campaign": nil, "channel": nil, "feature": nil,
        "iosUrl": "destinations.ios.url", "iosAppStoreId": "destinations.ios.appStoreId", "android": "destinations.android.url",
        "web": "destinations.web", "previewTitle": "preview.title", "previewDescription": "preview.description",
        "previewImage": "preview.imageUrl", "metadata": nil, "expiresAt": nil,
    ]

    /// What the form sent, or every problem the console found in it.
    static func read(_ form: FormFields, format: ConsoleFormat) -> (LinkForm, [FormProblem]) {
        var link = LinkForm(appPath: form.text("appPath"), campaign: form.text("campaign"), channel: form.text("channel"), feature: form.text("feature"))
        var problems: [FormProblem] = []
        let ios = LinkDestinations.IOS(appStoreId: form.text("iosAppStoreId"), url: form.text("iosUrl"))
        link.destinations = LinkDestinations(ios: ios.appStoreId == nil && ios.url == nil ? nil : ios,
                                             android: form.text("android").map { .init(url: $0) }, web: form.text("web"))
        let preview = LinkPreview(title: form.text("previewTitle"), description: form.text("previewDescription"), imageUrl: form.text("previewImage"))
        link.preview = preview == LinkPreview() ? nil : preview
        if let text = form.text("metadata") {
            if let object = try? JSONDecoder().decode([String: JSONLiteral].self, from: Data(text.utf8)) {
                link.metadata = object
            } else {
                problems.append(FormProblem(fieldId: "metadata", message: "metadata: must be a JSON object, e.g. {\"promo\": \"summer\"}"))
            }
        }
        if let text = form.text("expiresAt") {
            if let time = parseLocal(text, format: format) {
                link.expiresAt = time
            } else {
                problems.append(FormProblem(fieldId: "expiresAt", message: "expiresAt: must be a date and time"))
            }
        }
        // What the API would refuse one field at a time, marked here all at once.
        for (control, apiField) in [("iosUrl", "destinations.ios.url"), ("android", "destinations.android.url"), ("web", "destinations.web"),
                                    ("previewImage", "preview.imageUrl")] {
            if let text = form.text(control), !(URLComponents(string: text).map { $0.scheme == "https" && $0.host?.isEmpty == false } ?? false) {
                problems.append(FormProblem(fieldId: control, message: "\(apiField): must be an absolute https:// URL"))
            }
        }
        if let appPath = form.text("appPath"), !appPath.hasPrefix("/") {
            problems.append(FormProblem(fieldId: "appPath", message: "appPath: must start with /"))
        }
        if let storeId = form.text("iosAppStoreId"), storeId.wholeMatch(of: /[1-9][0-9]{0,11}/) == nil {
            problems.append(FormProblem(fieldId: "iosAppStoreId", message: "destinations.ios.appStoreId: must be the App Store ID's digits"))
        }
        link.interstitial = form["interstitial"] == "on"
        link.passQuery = form["passQuery"] == "on"
        link.inAppBrowserPage = form["inAppBrowserPage"] == "on"
        let (routing, routingProblems) = LinkRoutingForm.read(form, format: format)
        link.routing = routing
        return (link, problems + routingProblems)
    }

    /// The API's refusal beside the control it names (a rule's field beside its row).
    func problem(_ error: ConsoleAPIError) -> FormProblem {
        guard let field = error.field, let control = routing.control(for: field) else { return FormProblem(error, fields: Self.fields) }
        return FormProblem(fieldId: control, message: error.message)
    }

    /// The form's values for an existing link.
    static func values(of link: Link, format: ConsoleFormat) -> [String: String] {
        var values = ["appPath": link.appPath ?? "", "campaign": link.campaign ?? "", "channel": link.channel ?? "", "feature": link.feature ?? "",
                      "iosUrl": link.destinations.ios?.url ?? "", "iosAppStoreId": link.destinations.ios?.appStoreId ?? "",
                      "android": link.destinations.android?.url ?? "", "web": link.destinations.web ?? "",
                      "previewTitle": link.preview?.title ?? "", "previewDescription": link.preview?.description ?? "",
                      "previewImage": link.preview?.imageUrl ?? "", "expiresAt": link.expiresAt.flatMap { local($0, format: format) } ?? ""]
        if let metadata = link.metadata, !metadata.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            values["metadata"] = (try? encoder.encode(metadata)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        if link.interstitial { values["interstitial"] = "on" }
        if link.passQuery { values["passQuery"] = "on" }
        if link.inAppBrowserPage { values["inAppBrowserPage"] = "on" }
        return values.merging(LinkRoutingForm.values(of: link, format: format)) { $1 }
    }

    /// The controls every link has (the create form adds domain, app and path before them).
    static func controls(_ values: [String: String], problems: [FormProblem], zone: String) -> Markup {
        func field(_ name: String, _ label: String, type: String = "text", hint: String? = nil) -> Markup {
            ConsoleForms.input(name, label, value: values[name], problem: problems.first { $0.fieldId == name }.map(\.message), type: type, hint: hint)
        }
        func check(_ name: String, _ label: String) -> Markup {
            "<label class=\"check\"><input type=\"checkbox\" name=\"\(name)\"\(values[name] == "on" ? Markup(" checked") : "")> \(label)</label>"
        }
        let metadataProblem = problems.first { $0.fieldId == "metadata" }
        let metadataError: Markup = metadataProblem.map { "<span class=\"error\" id=\"metadata-error\">\($0.message)</span>" } ?? ""
        let metadataInvalid: Markup = metadataProblem == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"metadata-error\""
        return """
            <div class="fields">
            \(field("appPath", "Where the app goes, e.g. /promo/summer"))
            \(field("campaign", "Campaign")) \(field("channel", "Channel")) \(field("feature", "Feature"))
            </div>
            <fieldset><legend>Where each device goes</legend><div class="fields">
            \(field("iosUrl", "iPhone and iPad without the app: a page instead of the App Store (https://…, optional)", type: "url"))
            \(field("iosAppStoreId", "App Store id to send them to (optional; the app's own by default)"))
            \(field("android", "Android (the Play Store or any https URL)", type: "url"))
            \(field("web", "Desktops and everything else (https://…)", type: "url"))
            </div></fieldset>
            <fieldset><legend>Preview in messages and social posts</legend><div class="fields">
            \(field("previewTitle", "Title")) \(field("previewDescription", "Description")) \(field("previewImage", "Image (https://…)", type: "url"))
            </div></fieldset>
            <label for="metadata">Metadata the app receives (a JSON object, optional)</label>
            <textarea id="metadata" name="metadata" rows="3"\(metadataInvalid)>\(values["metadata"] ?? "")</textarea>\(metadataError)
            \(field("expiresAt", "Expires (optional)", type: "datetime-local", hint: "In your time zone, \(zone); the link answers 410 after it"))
            <fieldset><legend>Options</legend>
            \(check("interstitial", "show a page that opens the app or the store (instead of redirecting at once)"))
            \(check("passQuery", "pass the link's query string on to the destination"))
            \(check("inAppBrowserPage", "in an app's own browser (Instagram, TikTok…), show a page that helps people out of it"))
            </fieldset>
            \(LinkRoutingForm.controls(values, problems: problems, zone: zone))
            """
    }

    /// A `datetime-local` value in the viewer's zone, as the API's UTC time.
    static func parseLocal(_ text: String, format: ConsoleFormat) -> String? {
        if let milliseconds = ISOTime.milliseconds(text) { return Timestamp.iso(milliseconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = format.timeZone
        for pattern in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd"] {
            formatter.dateFormat = pattern
            if let date = formatter.date(from: text) { return Timestamp.iso(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        }
        return nil
    }

    /// The API's time as a `datetime-local` value in the viewer's zone.
    static func local(_ iso: String, format: ConsoleFormat) -> String? {
        guard let milliseconds = ISOTime.milliseconds(iso) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = format.timeZone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
