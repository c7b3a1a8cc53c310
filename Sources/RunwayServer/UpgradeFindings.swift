import Foundation
import LinkRunwayAPI
import RunwayJSON
import RunwayOutbound
import RunwayStore

/// What a database holds that this version treats differently from the releases before it, said at every start and by
/// `linkrunway migrate` so an upgrade changes nothing unannounced: outbound URLs the outbound policy now refuses (0.1.0
/// sent webhooks to any URL), and App Store ids whose postbacks go to another app or wait for a proof (0.2.0 routes
/// them only to the app that proved the id). docs/deployment.md lists the same changes per release.
public enum UpgradeFindings {
    /// How many ids a sentence names at most (the count is always whole).
    static let listed = 20

    public static func sentences(_ store: any Store, outbound: OutboundPolicy) async throws -> [String] {
        try await store.read { db in
            var sentences: [String] = []
            let webhooks = try db.query("SELECT id, url FROM webhooks WHERE enabled = 1 ORDER BY created_at, id", as: Webhook.self).compactMap { row in
                outbound.refusal(url: row.url).map { "\(row.id) (\(host(row.url)): \($0))" }
            }
            if !webhooks.isEmpty {
                sentences.append("\(webhooks.count) webhook(s) send to a URL this server refuses, so their deliveries are marked blocked_… and never "
                    + "sent (releases before 0.2.0 sent to any URL): \(named(webhooks)). Change each URL to a public https:// one, or set "
                    + "LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS=on on a server that may reach a private network.")
            }
            let forwards = try db.query("SELECT id, postback_settings FROM apps WHERE postback_settings IS NOT NULL ORDER BY created_at, id",
                                        as: AppPostbacks.self)
                .flatMap { row -> [String] in
                    guard let settings = try? StrictJSONDecoder().decode(PostbackSettings.self, from: Array(row.postbackSettings.utf8)) else { return [] }
                    return settings.forwardUrls.compactMap { url in outbound.refusal(url: url).map { "\(row.id) (\(host(url)): \($0))" } }
                }
            if !forwards.isEmpty {
                sentences.append("\(forwards.count) postback forwarding URL(s) are refused by this server and receive nothing: \(named(forwards)). "
                    + "Change them to public https:// URLs, or set LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS=on.")
            }
            let lost = try db.query("""
                SELECT c.app_id, c.app_store_id, h.app_id AS holder FROM app_store_id_claims c
                JOIN app_store_id_claims h ON h.app_store_id = c.app_store_id AND h.proven_at IS NOT NULL AND h.app_id <> c.app_id
                WHERE c.proven_at IS NULL ORDER BY c.app_id
                """, as: Claim.self).map { "\($0.appId) (App Store id \($0.appStoreId), held by \($0.holder ?? ""))" }
            if !lost.isEmpty {
                sentences.append("\(lost.count) app(s) name an App Store id another app proved, and its postbacks go to that app alone "
                    + "(0.1.0 gave them to whichever app it found first): \(named(lost)). Each shows appStoreIdRouting another_app; the app "
                    + "published under the id takes it back with a verified App Store notification, or an admin key's "
                    + "POST /v1/apps/{appId}/app-store-id/prove.")
            }
            let waiting = try db.query("""
                SELECT c.app_id, c.app_store_id FROM app_store_id_claims c WHERE c.proven_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM app_store_id_claims h WHERE h.app_store_id = c.app_store_id AND h.proven_at IS NOT NULL)
                ORDER BY c.app_id
                """, as: Claim.self).map { "\($0.appId) (App Store id \($0.appStoreId))" }
            if !waiting.isEmpty {
                sentences.append("\(waiting.count) app(s) name an App Store id they have not proven, and its postbacks are kept unrouted until "
                    + "they do (a verified production App Store notification, a signed app transaction from the SDK, or an admin key's "
                    + "POST /v1/apps/{appId}/app-store-id/prove): \(named(waiting)).")
            }
            return sentences
        }
    }

    /// The host of a URL, never its path or query (they may carry a token).
    static func host(_ url: String) -> String {
        URLComponents(string: url)?.host.map { $0.isEmpty ? "no host" : $0 } ?? "not a URL"
    }

    static func named(_ items: [String]) -> String {
        items.prefix(listed).joined(separator: ", ") + (items.count > listed ? " and \(items.count - listed) more" : "")
    }

    private struct Webhook: Decodable {
        let id: String
        let url: String
    }

    private struct AppPostbacks: Decodable {
        let id: String
        let postbackSettings: String
    }

    /// An app's claim on an App Store id, with the app that proved it when one did.
    private struct Claim: Decodable {
        let appId: String
        let appStoreId: String
        let holder: String?
    }
}
