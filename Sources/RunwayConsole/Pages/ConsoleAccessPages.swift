import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayCrypto
import RunwayHTTP
import RunwayKit

/// The people who sign in with a password: added (a password made here and shown once) and removed (their sessions end
/// at once).
enum UserPages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, created: nil, error: nil, typed: nil))
    }

    static func page(_ context: ConsoleContext, created: (user: ConsoleUser, password: String)?, error: ConsoleAPIError?, typed: String?) async throws -> ConsolePage {
        let users = try await context.api.all("/v1/users", query: [("workspaceId", context.workspace.id)], as: ConsoleUser.self)
            .filter { $0.workspaceId == context.workspace.id }
        let shown: Markup = created.map { created in
            """
            <div class="card" role="status"><h2>Give \(created.user.email) this password now</h2>
            <p>It is shown only on this page; LinkRunway keeps only a PBKDF2 hash of it.</p>
            <p class="secret">\(created.password)</p></div>
            """
        } ?? ""
        let rows: [[Markup]] = users.map { user in
            ["\(user.email)", "\(context.format.time(user.createdAt))", """
                <form method="post" action="/console/users/\(user.id)/delete" class="inline">\(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
                <button type="submit" class="danger" aria-label="Remove \(user.email)">Remove</button></form>
                """]
        }
        let list: Markup = rows.isEmpty ? ConsoleLayout.empty("No console users in this workspace. Add the people who should see it below; they sign in with their email and password.")
            : ConsoleLayout.table(["email", "added", ConsoleLayout.actions], rows, caption: "Console users of this workspace")
        let form: Markup = """
            <form method="post" action="/console/users" class="card">
            <h2>New user</h2>
            <p class="hint">They see this workspace only. A password is made for them and shown once.</p>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(ConsoleForms.field("email", "Email", value: typed, error: error, type: "email", required: true))
            <button type="submit">Add user</button>
            </form>
            """
        return ConsolePage(title: "Users", body: shown + list + form, status: error.map(\.status) ?? (created == nil ? 200 : 201),
                           problems: error.map { [FormProblem($0, fields: ["email": nil])] } ?? [])
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let email = context.form["email"] ?? ""
        let password = SecureRandom.string(length: 20, alphabet: SecureRandom.base62)
        do {
            let user = try await context.api.send(.POST, "/v1/users", CreateConsoleUserRequest(workspaceId: context.workspace.id, email: email,
                                                                                                 password: password), as: ConsoleUser.self)
            return .page(try await page(context, created: (user, password), error: nil, typed: nil))
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
            return .page(try await page(context, created: nil, error: error, typed: email))
        }
    }

    static func remove(_ context: ConsoleContext) async throws -> ConsoleResult {
        _ = try await context.api.raw(.DELETE, "/v1/users/\(context.parameter("id"))")
        return .redirect(context.link("/console/users", [("notice", "Removed the user; their sessions have ended.")]))
    }
}

/// Ad network identities: the public key to register with Apple, and new identities (a key made here, or brought).
enum AdNetworkPages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, error: nil, typed: [:]))
    }

    static func page(_ context: ConsoleContext, error: ConsoleAPIError?, typed: [String: String]) async throws -> ConsolePage {
        let networks = try await context.api.all("/v1/ad-networks", query: [("workspaceId", context.workspace.id)], as: AdNetwork.self)
            .filter { $0.workspaceId == context.workspace.id }
        let list: Markup = networks.isEmpty
            ? ConsoleLayout.empty("No ad network identities. If you run ad campaigns as an ad network, add yours below to sign impressions.")
            : ConsoleLayout.table(["ad network id", "public key (to register with Apple)", "added"], networks.map { network in
                ["\(network.adNetworkId)", "<code class=\"key\">\(network.publicKey)</code>", "\(context.format.time(network.createdAt))"]
            }, caption: "Ad network identities")
        let pemFailed = error?.field == "privateKeyPem"
        let pemError: Markup = (pemFailed ? error : nil).map { "<span class=\"error\" id=\"privateKeyPem-error\">\($0.reason)</span>" } ?? ""
        let pemInvalid: Markup = pemFailed ? " aria-invalid=\"true\" aria-describedby=\"privateKeyPem-error\"" : ""
        let form: Markup = """
            <form method="post" action="/console/ad-networks" class="card">
            <h2>New ad network identity</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(ConsoleForms.field("adNetworkId", "Ad network id (as registered with Apple)", value: typed["adNetworkId"], error: error, required: true))
            <label for="privateKeyPem">P-256 private key in PEM (optional; one is made when empty)</label>
            <textarea id="privateKeyPem" name="privateKeyPem" rows="4"\(pemInvalid)></textarea>\(pemError)
            <p class="hint">The private key stays on this server and is never shown again.</p>
            <button type="submit">Add identity</button>
            </form>
            """
        return ConsolePage(title: "Ad networks", body: list + form, status: error.map(\.status) ?? 200,
                           problems: error.map { [FormProblem($0, fields: ["adNetworkId": nil, "privateKeyPem": nil])] } ?? [])
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let request = CreateAdNetworkRequest(workspaceId: context.workspace.id, adNetworkId: form["adNetworkId"] ?? "",
                                             privateKeyPem: form.text("privateKeyPem"))
        do {
            let network = try await context.api.send(.POST, "/v1/ad-networks", request, as: AdNetwork.self)
            return .redirect(context.link("/console/ad-networks", [("notice", "Added \(network.adNetworkId).")]))
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
            return .page(try await page(context, error: error, typed: ["adNetworkId": form["adNetworkId"] ?? ""]))
        }
    }
}
