import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// An app's Info.plist keys for AdAttributionKit and SKAdNetwork, as the server writes them (the same as
/// `linkrunway plist`), and a box to paste the app's Info.plist into for the check `linkrunway plist check` runs.
enum InfoPlistPage {
    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, pasted: "", check: nil, error: nil))
    }

    static func check(_ context: ConsoleContext) async throws -> ConsoleResult {
        let pasted = context.form.text("plist") ?? ""
        do {
            let check = try await context.api.send(.POST, "/v1/info-plist/check",
                                                   CheckInfoPlistRequest(workspaceId: context.workspace.id, plist: pasted), as: InfoPlistCheck.self)
            return .page(try await page(context, pasted: pasted, check: check, error: nil))
        } catch let error as ConsoleAPIError where error.status == 400 {
            return .page(try await page(context, pasted: pasted, check: nil, error: error))
        }
    }

    static func page(_ context: ConsoleContext, pasted: String, check: InfoPlistCheck?, error: ConsoleAPIError?) async throws -> ConsolePage {
        let apps = try await context.apps()
        guard let app = SchemaPage.chosenApp(context, apps) else {
            return ConsolePage(title: "Info.plist", body: ConsoleLayout.empty("No apps yet. Register one with linkrunway app create."))
        }
        let fragment = try await context.api.get("/v1/apps/\(app.id)/info-plist", as: InfoPlistFragment.self)
        let notes = Markup.join(fragment.notes.map { "<p class=\"hint\">\($0)</p>" })
        let result: Markup
        if let error {
            result = "<p class=\"error\" role=\"alert\" id=\"plist-error\">\(error.reason)</p>"
        } else if let check {
            result = check.findings.isEmpty
                ? "<p class=\"notice\" role=\"status\">The attribution keys follow Apple's rules.</p>"
                : ConsoleLayout.table(["level", "key", "what is wrong"],
                                      check.findings.map { ["\($0.level)", "<code>\($0.key)</code>", "\($0.message)"] },
                                      caption: "What the check found in the pasted Info.plist")
        } else {
            result = ""
        }
        let invalid: Markup = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"plist-error\""
        let body: Markup = """
            \(ConsolePages.appFilter(context, apps: apps, selected: app.id, allowAll: false))
            <h2>Keys for \(app.name)</h2>
            <p class="hint">Merge these into the app's Info.plist: where Apple sends postback copies (this workspace's first verified link
            domain), the attribution rules set with linkrunway plist settings, and, for a publisher app, the workspace's ad networks.</p>
            \(notes)
            <pre class="plist"><code>\(fragment.plist)</code></pre>
            <form method="post" action="/console/info-plist" class="card">
            <h2>Check an Info.plist</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)"><input type="hidden" name="app" value="\(app.id)">
            <label for="plist">Paste the app's Info.plist (XML)</label>
            <textarea id="plist" name="plist" rows="12" required\(invalid)>\(pasted)</textarea>
            <button type="submit">Check</button>
            </form>
            \(result)
            """
        return ConsolePage(title: "Info.plist", body: body, status: error?.status ?? 200)
    }
}
