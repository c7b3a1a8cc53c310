import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// Every route against every kind of caller: no key, a malformed key, a revoked key, each key kind the route does not
/// accept, and a key of another workspace. A new route without an entry here fails the suite.
@Suite("Key matrix")
struct AuthMatrixTests {
    /// A request that reaches workspace A's resources through one route.
    struct Probe {
        let method: String
        let path: String
        let body: String
        /// True when the route touches a particular workspace's data, so a key of workspace B must get 403.
        let workspaceScoped: Bool
        /// An open route that authenticates the request itself (an HMAC): without it, 401 invalid_signature.
        var signed = false
    }

    struct World {
        let server: TestServer
        let workspaceA: String
        let appA: App
        let serverKeyA: CreatedKey
        let keys: [KeyKind: CreatedKey]       // workspace B's publishable and server keys, and an admin key
        let revoked: [KeyKind: CreatedKey]    // one revoked key of each kind
        let linkA: Link
        let spareDomainA: LinkDomain
        let referralCodeA: String
        let installA: String
        let webhookA: String
        let adNetworkA: String
        let placementA: String
        let affiliateA: String
        let programA: String
        let surfaceA: String
        let qrLogoA: String
        let userA: String
    }

    static func makeWorld(_ backend: StoreBackend = .sqlite) async throws -> World {
        let server = try await TestServer.start(backend)
        let a = server.defaultWorkspace.id
        let b = try await server.createWorkspace("B").id
        let appA = try await server.createApp(in: a)
        let appB = try await server.createApp(in: b)
        var keys: [KeyKind: CreatedKey] = [:]
        keys[.publishable] = try await server.createKey(.publishable, app: appB.id)
        keys[.server] = try await server.createKey(.server, workspace: b)
        keys[.admin] = try await server.createKey(.admin)
        var revoked: [KeyKind: CreatedKey] = [:]
        revoked[.publishable] = try await server.createKey(.publishable, app: appA.id)
        revoked[.server] = try await server.createKey(.server, workspace: a)
        revoked[.admin] = try await server.createKey(.admin)
        for key in revoked.values {
            _ = try await server.admin.post("/v1/keys/\(key.key.id)/revoke", json: "{}").decoded(APIKey.self)
        }
        let linkA = try await server.createLink(CreateLinkRequest(workspaceId: a, path: "matrix-a", appPath: "/a"))
        let spare = try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: a, hostname: "spare.example.com"))
            .decoded(LinkDomain.self, status: 201)
        let clientA = try await server.createKey(.publishable, app: appA.id)
        let code = try await server.client(clientA.secret).post("/v1/referral-codes", CreateReferralCodeRequest(installId: "matrix-install"))
            .decoded(ReferralCode.self, status: 201)
        _ = try await server.client(clientA.secret).post("/v1/installs/match", MatchInstallRequest(installId: "matrix-install", platform: "ios", consent: true))
            .decoded(InstallMatch.self)
        let webhook = try await server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: a, url: "https://hooks.example.com/a", topics: ["install"]))
            .decoded(CreatedWebhook.self, status: 201)
        let network = try await server.admin.post("/v1/ad-networks", CreateAdNetworkRequest(workspaceId: a, adNetworkId: "matrix.skadnetwork"))
            .decoded(AdNetwork.self, status: 201)
        let placement = try await server.admin.post("/v1/ad-networks/\(network.id)/placements",
                                                    CreateAdPlacementRequest(appId: appA.id, advertisedItemId: 525463029, sourceIdentifier: 12))
            .decoded(AdPlacement.self, status: 201)
        let affiliate = try await server.admin.post("/v1/affiliates", CreateAffiliateRequest(workspaceId: a, name: "Matrix")).decoded(Affiliate.self, status: 201)
        let commission = CommissionRule(kind: "percent", basisPoints: 100, duration: "lifetime")
        let program = try await server.admin.post("/v1/affiliate-programs", CreateProgramRequest(appId: appA.id, name: "P", commission: commission))
            .decoded(AffiliateProgram.self, status: 201)
        let surface = try await server.admin.post("/v1/apps/\(appA.id)/app-store-surfaces", CreateSurfaceRequest(environment: "sandbox"))
            .decoded(CreatedSurface.self, status: 201)
        let logo = try await server.admin.post("/v1/qr-logos", CreateQRLogoRequest(workspaceId: a, name: "Logo", format: "png", data: onePixelPNG))
            .decoded(QRLogo.self, status: 201)
        let user = try await server.admin.post("/v1/users", CreateConsoleUserRequest(workspaceId: a, email: "matrix@example.com", password: "matrix password"))
            .decoded(ConsoleUser.self, status: 201)
        return World(server: server, workspaceA: a, appA: appA, serverKeyA: try await server.createKey(.server, workspace: a),
                     keys: keys, revoked: revoked, linkA: linkA, spareDomainA: spare, referralCodeA: code.code,
                     installA: "matrix-install", webhookA: webhook.webhook.id, adNetworkA: network.id, placementA: placement.id, affiliateA: affiliate.id,
                     programA: program.id, surfaceA: surface.surface.id, qrLogoA: logo.id, userA: user.id)
    }

    /// A PNG of one pixel, base64: the smallest QR logo.
    static let onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMQUDD4DwACBAFgjby7cQAAAABJRU5ErkJggg=="

    static func probes(_ w: World) -> [String: Probe] {
        let app = #"{"workspaceId":"\#(w.workspaceA)","name":"X","teamId":"ABCDE12345","bundleId":"com.matrix.app"}"#
        return [
            "GET /healthz": Probe(method: "GET", path: "/healthz", body: "", workspaceScoped: false),
            "GET /readyz": Probe(method: "GET", path: "/readyz", body: "", workspaceScoped: false),
            "GET /metrics": Probe(method: "GET", path: "/metrics", body: "", workspaceScoped: false),
            "GET /openapi.json": Probe(method: "GET", path: "/openapi.json", body: "", workspaceScoped: false),
            "POST /v1/workspaces": Probe(method: "POST", path: "/v1/workspaces", body: #"{"name":"M"}"#, workspaceScoped: false),
            "GET /v1/workspaces": Probe(method: "GET", path: "/v1/workspaces", body: "", workspaceScoped: false),
            "GET /v1/workspaces/{workspaceId}": Probe(method: "GET", path: "/v1/workspaces/\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/apps": Probe(method: "POST", path: "/v1/apps", body: app, workspaceScoped: true),
            "GET /v1/apps": Probe(method: "GET", path: "/v1/apps?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/apps/{appId}": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)", body: "", workspaceScoped: true),
            "PATCH /v1/apps/{appId}": Probe(method: "PATCH", path: "/v1/apps/\(w.appA.id)", body: #"{"name":"Y"}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/app-store-id": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/app-store-id", body: "", workspaceScoped: true),
            "POST /v1/apps/{appId}/app-store-id/prove": Probe(method: "POST", path: "/v1/apps/\(w.appA.id)/app-store-id/prove", body: "{}", workspaceScoped: true),
            // The app has no production surface and no key: the call stops before asking Apple.
            "POST /v1/apps/{appId}/app-store/test-notification": Probe(method: "POST", path: "/v1/apps/\(w.appA.id)/app-store/test-notification",
                                                                       body: "{}", workspaceScoped: true),
            "POST /v1/keys": Probe(method: "POST", path: "/v1/keys", body: #"{"kind":"server","workspaceId":"\#(w.workspaceA)"}"#, workspaceScoped: true),
            "GET /v1/keys": Probe(method: "GET", path: "/v1/keys?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/keys/{keyId}": Probe(method: "GET", path: "/v1/keys/\(w.serverKeyA.key.id)", body: "", workspaceScoped: true),
            "POST /v1/keys/{keyId}/revoke": Probe(method: "POST", path: "/v1/keys/\(w.serverKeyA.key.id)/revoke", body: "{}", workspaceScoped: true),
            "GET /v1/me": Probe(method: "GET", path: "/v1/me", body: "", workspaceScoped: false),
            "POST /v1/domains": Probe(method: "POST", path: "/v1/domains", body: #"{"workspaceId":"\#(w.workspaceA)","hostname":"m.example.com"}"#, workspaceScoped: true),
            "GET /v1/domains": Probe(method: "GET", path: "/v1/domains?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/domains/{domainId}/verify": Probe(method: "POST", path: "/v1/domains/\(w.spareDomainA.id)/verify", body: "", workspaceScoped: true),
            "DELETE /v1/domains/{domainId}": Probe(method: "DELETE", path: "/v1/domains/\(w.spareDomainA.id)", body: "", workspaceScoped: true),
            "POST /v1/links/import": Probe(method: "POST", path: "/v1/links/import",
                                           body: #"{"workspaceId":"\#(w.workspaceA)","dryRun":true,"links":[{"path":"matrix-import"}]}"#, workspaceScoped: true),
            "POST /v1/links": Probe(method: "POST", path: "/v1/links", body: #"{"workspaceId":"\#(w.workspaceA)","path":"matrix-new"}"#, workspaceScoped: true),
            "GET /v1/links": Probe(method: "GET", path: "/v1/links?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/links/{linkId}": Probe(method: "GET", path: "/v1/links/\(w.linkA.id)", body: "", workspaceScoped: true),
            "PATCH /v1/links/{linkId}": Probe(method: "PATCH", path: "/v1/links/\(w.linkA.id)", body: #"{"campaign":"x"}"#, workspaceScoped: true),
            "POST /v1/links/{linkId}/disable": Probe(method: "POST", path: "/v1/links/\(w.linkA.id)/disable", body: "", workspaceScoped: true),
            "GET /v1/links/{linkId}/stats": Probe(method: "GET", path: "/v1/links/\(w.linkA.id)/stats", body: "", workspaceScoped: true),
            "GET /v1/links/{linkId}/qr.svg": Probe(method: "GET", path: "/v1/links/\(w.linkA.id)/qr.svg", body: "", workspaceScoped: true),
            "GET /v1/links/{linkId}/qr.png": Probe(method: "GET", path: "/v1/links/\(w.linkA.id)/qr.png", body: "", workspaceScoped: true),
            "POST /v1/qr-logos": Probe(method: "POST", path: "/v1/qr-logos",
                                       body: #"{"workspaceId":"\#(w.workspaceA)","name":"L","format":"png","data":"\#(onePixelPNG)"}"#, workspaceScoped: true),
            "GET /v1/qr-logos": Probe(method: "GET", path: "/v1/qr-logos?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "DELETE /v1/qr-logos/{logoId}": Probe(method: "DELETE", path: "/v1/qr-logos/\(w.qrLogoA)", body: "", workspaceScoped: true),
            // Client routes answer 404 for another workspace's links and codes (never 403), so nothing leaks; the
            // Links API tests check that.
            "POST /v1/resolve": Probe(method: "POST", path: "/v1/resolve", body: #"{"url":"\#(w.linkA.url)","platform":"ios"}"#, workspaceScoped: false),
            "POST /v1/shares": Probe(method: "POST", path: "/v1/shares", body: #"{"installId":"i-1","appPath":"/x"}"#, workspaceScoped: false),
            "POST /v1/referral-codes": Probe(method: "POST", path: "/v1/referral-codes", body: #"{"installId":"i-1"}"#, workspaceScoped: false),
            "GET /v1/referral-codes/{code}": Probe(method: "GET", path: "/v1/referral-codes/\(w.referralCodeA)", body: "", workspaceScoped: false),
            "GET /.well-known/apple-app-site-association": Probe(method: "GET", path: "/.well-known/apple-app-site-association", body: "", workspaceScoped: false),
            "GET /apple-app-site-association": Probe(method: "GET", path: "/apple-app-site-association", body: "", workspaceScoped: false),
            "GET /.well-known/assetlinks.json": Probe(method: "GET", path: "/.well-known/assetlinks.json", body: "", workspaceScoped: false),
            "GET /{path...}": Probe(method: "GET", path: "/matrix-a", body: "", workspaceScoped: false),
            // Installs and events of another workspace are unknown (404) or name an app that is not theirs (400).
            "POST /v1/installs/match": Probe(method: "POST", path: "/v1/installs/match", body: #"{"installId":"m-2","platform":"ios","consent":true}"#, workspaceScoped: false),
            "GET /v1/events": Probe(method: "GET", path: "/v1/events?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/installs": Probe(method: "GET", path: "/v1/installs?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/installs/{installId}/attribution": Probe(method: "GET", path: "/v1/installs/\(w.installA)/attribution", body: "", workspaceScoped: false),
            "POST /v1/impressions": Probe(method: "POST", path: "/v1/impressions", body: #"{"appId":"\#(w.appA.id)","ip":"198.51.100.1"}"#, workspaceScoped: true),
            "POST /v1/events": Probe(method: "POST", path: "/v1/events", body: #"{"eventId":"e-1","type":"OPEN","installId":"\#(w.installA)","timestamp":"2026-01-01T00:00:00Z","appId":"\#(w.appA.id)"}"#, workspaceScoped: false),
            "POST /v1/events/batch": Probe(method: "POST", path: "/v1/events/batch", body: #"{"events":[{"eventId":"e-2","type":"OPEN","installId":"\#(w.installA)","timestamp":"2026-01-01T00:00:00Z","appId":"\#(w.appA.id)"}]}"#, workspaceScoped: false),
            "POST /v1/installs/{installId}/forget": Probe(method: "POST", path: "/v1/installs/\(w.installA)/forget", body: "", workspaceScoped: false),
            "DELETE /v1/installs/{installId}": Probe(method: "DELETE", path: "/v1/installs/\(w.installA)", body: "", workspaceScoped: false),
            "GET /v1/installs/{installId}/export": Probe(method: "GET", path: "/v1/installs/\(w.installA)/export", body: "", workspaceScoped: false),
            "GET /v1/reports/funnel": Probe(method: "GET", path: "/v1/reports/funnel?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/reports/apple-ads": Probe(method: "GET", path: "/v1/reports/apple-ads?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/webhooks": Probe(method: "POST", path: "/v1/webhooks", body: #"{"workspaceId":"\#(w.workspaceA)","url":"https://hooks.example.com/b","topics":["event"]}"#, workspaceScoped: true),
            "GET /v1/webhooks": Probe(method: "GET", path: "/v1/webhooks?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/users": Probe(method: "POST", path: "/v1/users", body: #"{"workspaceId":"\#(w.workspaceA)","email":"probe@example.com","password":"probe password"}"#, workspaceScoped: true),
            "GET /v1/users": Probe(method: "GET", path: "/v1/users?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "DELETE /v1/users/{userId}": Probe(method: "DELETE", path: "/v1/users/\(w.userA)", body: "", workspaceScoped: true),
            "DELETE /v1/webhooks/{webhookId}": Probe(method: "DELETE", path: "/v1/webhooks/\(w.webhookA)", body: "", workspaceScoped: true),
            "GET /v1/webhooks/{webhookId}/deliveries": Probe(method: "GET", path: "/v1/webhooks/\(w.webhookA)/deliveries", body: "", workspaceScoped: true),
            "POST /v1/webhooks/{webhookId}/test": Probe(method: "POST", path: "/v1/webhooks/\(w.webhookA)/test", body: "", workspaceScoped: true),
            "POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": Probe(method: "POST", path: "/v1/webhooks/\(w.webhookA)/deliveries/whd_matrix/redeliver",
                                                                                   body: "", workspaceScoped: true),
            "POST /v1/simulate/clicks": Probe(method: "POST", path: "/v1/simulate/clicks", body: #"{"url":"\#(w.linkA.url)"}"#, workspaceScoped: true),
            "POST /v1/claims/apple-ads": Probe(method: "POST", path: "/v1/claims/apple-ads", body: #"{"installId":"\#(w.installA)","token":"invalid"}"#, workspaceScoped: false),
            // App Attest answers for the publishable key's own app only; another app's id is 403 app_forbidden.
            "POST /v1/attest/apple/challenge": Probe(method: "POST", path: "/v1/attest/apple/challenge", body: "", workspaceScoped: false),
            "POST /v1/attest/apple/register": Probe(method: "POST", path: "/v1/attest/apple/register", body: #"{"appId":"\#(w.appA.id)","keyId":"AA==","attestation":"AA==","challenge":"c"}"#, workspaceScoped: false),
            "POST /v1/attest/apple/assert": Probe(method: "POST", path: "/v1/attest/apple/assert", body: #"{"appId":"\#(w.appA.id)","keyId":"AA==","assertion":"AA==","challenge":"c"}"#, workspaceScoped: false),
            "PUT /v1/apps/{appId}/conversion-schema": Probe(method: "PUT", path: "/v1/apps/\(w.appA.id)/conversion-schema", body: #"{"rules":[{"type":"INSTALL","fine":0}]}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/conversion-schema": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/conversion-schema", body: "", workspaceScoped: true),
            "GET /v1/apps/{appId}/conversion-schema/versions": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/conversion-schema/versions", body: "", workspaceScoped: true),
            // A publishable key of another app gets 403 app_forbidden here.
            "GET /v1/mobile/config/{appId}": Probe(method: "GET", path: "/v1/mobile/config/\(w.appA.id)", body: "", workspaceScoped: false),
            "POST /.well-known/skadnetwork/report-attribution/": Probe(method: "POST", path: "/.well-known/skadnetwork/report-attribution/", body: #"{"version":"4.0"}"#, workspaceScoped: false),
            "POST /.well-known/appattribution/report-attribution/": Probe(method: "POST", path: "/.well-known/appattribution/report-attribution/", body: "{}", workspaceScoped: false),
            "GET /v1/postbacks": Probe(method: "GET", path: "/v1/postbacks?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/reports/postbacks": Probe(method: "GET", path: "/v1/reports/postbacks?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/ad-networks": Probe(method: "POST", path: "/v1/ad-networks", body: #"{"workspaceId":"\#(w.workspaceA)","adNetworkId":"other.skadnetwork"}"#, workspaceScoped: true),
            "GET /v1/ad-networks": Probe(method: "GET", path: "/v1/ad-networks?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/apps/{appId}/ad-attribution": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/ad-attribution", body: "", workspaceScoped: true),
            "PUT /v1/apps/{appId}/ad-attribution": Probe(method: "PUT", path: "/v1/apps/\(w.appA.id)/ad-attribution", body: #"{"reengagementPostbackCopies":true,"overlappingConversions":false,"attributionWindows":[]}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/info-plist": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/info-plist", body: "", workspaceScoped: true),
            "POST /v1/info-plist/check": Probe(method: "POST", path: "/v1/info-plist/check", body: #"{"workspaceId":"\#(w.workspaceA)","plist":"<plist version=\"1.0\"><dict/></plist>"}"#, workspaceScoped: true),
            "POST /v1/ad-networks/{networkId}/impressions": Probe(method: "POST", path: "/v1/ad-networks/\(w.adNetworkA)/impressions", body: #"{"format":"adattributionkit","sourceIdentifier":12,"advertisedItemId":1}"#, workspaceScoped: true),
            "POST /v1/ad-networks/{networkId}/placements": Probe(method: "POST", path: "/v1/ad-networks/\(w.adNetworkA)/placements",
                                                                 body: #"{"appId":"\#(w.appA.id)","advertisedItemId":1,"sourceIdentifier":1}"#, workspaceScoped: true),
            "GET /v1/ad-networks/{networkId}/placements": Probe(method: "GET", path: "/v1/ad-networks/\(w.adNetworkA)/placements", body: "", workspaceScoped: true),
            "DELETE /v1/ad-placements/{placementId}": Probe(method: "DELETE", path: "/v1/ad-placements/\(w.placementA)", body: "", workspaceScoped: true),
            // A publishable key of another app finds no placement (404), as one of another workspace does.
            "POST /v1/ad-placements/{placementId}/impressions": Probe(method: "POST", path: "/v1/ad-placements/\(w.placementA)/impressions", body: "",
                                                                      workspaceScoped: false),
            "POST /v1/affiliates": Probe(method: "POST", path: "/v1/affiliates", body: #"{"workspaceId":"\#(w.workspaceA)","name":"M"}"#, workspaceScoped: true),
            "GET /v1/affiliates": Probe(method: "GET", path: "/v1/affiliates?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/affiliate-programs": Probe(method: "POST", path: "/v1/affiliate-programs", body: #"{"appId":"\#(w.appA.id)","name":"Q","commission":{"kind":"percent","basisPoints":100,"duration":"first"}}"#, workspaceScoped: true),
            "GET /v1/affiliate-programs": Probe(method: "GET", path: "/v1/affiliate-programs?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "GET /v1/affiliates/{affiliateId}/codes": Probe(method: "GET", path: "/v1/affiliates/\(w.affiliateA)/codes", body: "", workspaceScoped: true),
            "POST /v1/affiliates/{affiliateId}/codes": Probe(method: "POST", path: "/v1/affiliates/\(w.affiliateA)/codes", body: #"{"programId":"\#(w.programA)"}"#, workspaceScoped: true),
            "POST /v1/affiliates/{affiliateId}/links": Probe(method: "POST", path: "/v1/affiliates/\(w.affiliateA)/links", body: #"{"programId":"\#(w.programA)"}"#, workspaceScoped: true),
            "GET /v1/affiliates/{affiliateId}/balance": Probe(method: "GET", path: "/v1/affiliates/\(w.affiliateA)/balance", body: "", workspaceScoped: true),
            "GET /v1/affiliates/{affiliateId}/ledger": Probe(method: "GET", path: "/v1/affiliates/\(w.affiliateA)/ledger", body: "", workspaceScoped: true),
            "POST /v1/affiliates/{affiliateId}/payouts": Probe(method: "POST", path: "/v1/affiliates/\(w.affiliateA)/payouts", body: #"{"currency":"USD"}"#, workspaceScoped: true),
            "GET /v1/reports/payouts": Probe(method: "GET", path: "/v1/reports/payouts?workspaceId=\(w.workspaceA)", body: "", workspaceScoped: true),
            "POST /v1/apps/{appId}/app-store-surfaces": Probe(method: "POST", path: "/v1/apps/\(w.appA.id)/app-store-surfaces", body: #"{"environment":"sandbox"}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/app-store-surfaces": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/app-store-surfaces", body: "", workspaceScoped: true),
            "GET /v1/apps/{appId}/app-store/notifications": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/app-store/notifications", body: "", workspaceScoped: true),
            // No key is ever stored here (the probe's is not a key), so a replay stops at 409 before asking Apple.
            "PUT /v1/apps/{appId}/app-store-key": Probe(method: "PUT", path: "/v1/apps/\(w.appA.id)/app-store-key",
                                                        body: #"{"issuerId":"57246542-96fe-1a63-e053-0824d011072a","keyId":"2X9R4HXF34","privateKey":"x"}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/app-store-key": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/app-store-key", body: "", workspaceScoped: true),
            "DELETE /v1/apps/{appId}/app-store-key": Probe(method: "DELETE", path: "/v1/apps/\(w.appA.id)/app-store-key", body: "", workspaceScoped: true),
            "POST /v1/apps/{appId}/app-store/replay": Probe(method: "POST", path: "/v1/apps/\(w.appA.id)/app-store/replay",
                                                            body: #"{"environment":"sandbox","since":"\#(Timestamp.iso(Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000))"}"#,
                                                            workspaceScoped: true),
            // Binds answer for the publishable key's own app: another app's codes are unknown (404), its surfaces too.
            "POST /v1/app-store/bind": Probe(method: "POST", path: "/v1/app-store/bind", body: #"{"refCode":"NOPE"}"#, workspaceScoped: false),
            "POST /v1/app-store/bind/deferred": Probe(method: "POST", path: "/v1/app-store/bind/deferred", body: #"{"surfaceId":"\#(w.surfaceA)"}"#, workspaceScoped: false),
            "POST /v1/app-store/notifications/{surfaceId}": Probe(method: "POST", path: "/v1/app-store/notifications/\(w.surfaceA)", body: #"{"signedPayload":"a.b.c"}"#, workspaceScoped: false),
            "POST /v1/app-store/assn/{surfaceId}": Probe(method: "POST", path: "/v1/app-store/assn/\(w.surfaceA)", body: #"{"signedPayload":"a.b.c"}"#, workspaceScoped: false, signed: true),
            "POST /v1/simulate/installs": Probe(method: "POST", path: "/v1/simulate/installs", body: #"{"appId":"\#(w.appA.id)"}"#, workspaceScoped: true),
            // Retention messages: without an In-App Purchase key, the calls to Apple stop at 409 before asking it.
            "POST /v1/app-store/retention/{surfaceId}": Probe(method: "POST", path: "/v1/app-store/retention/\(w.surfaceA)", body: #"{"signedPayload":"a.b.c"}"#,
                                                              workspaceScoped: false),
            "GET /v1/apps/{appId}/retention/rules": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/retention/rules", body: "", workspaceScoped: true),
            "PUT /v1/apps/{appId}/retention/rules": Probe(method: "PUT", path: "/v1/apps/\(w.appA.id)/retention/rules", body: #"{"rules":[]}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/retention/report": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/retention/report", body: "", workspaceScoped: true),
            "GET /v1/apps/{appId}/retention/messages": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/retention/messages", body: "", workspaceScoped: true),
            "POST /v1/apps/{appId}/retention/messages": Probe(method: "POST", path: "/v1/apps/\(w.appA.id)/retention/messages",
                                                              body: #"{"header":"h","body":"b"}"#, workspaceScoped: true),
            "DELETE /v1/apps/{appId}/retention/messages/{messageId}": Probe(method: "DELETE",
                                                                            path: "/v1/apps/\(w.appA.id)/retention/messages/0d9b2c1e-5a2f-4c7e-9d3b-000000000001",
                                                                            body: "", workspaceScoped: true),
            "PUT /v1/apps/{appId}/retention/default-messages": Probe(method: "PUT", path: "/v1/apps/\(w.appA.id)/retention/default-messages",
                                                                     body: #"{"productId":"p","locale":"en-US"}"#, workspaceScoped: true),
            "PUT /v1/apps/{appId}/retention/realtime-url": Probe(method: "PUT", path: "/v1/apps/\(w.appA.id)/retention/realtime-url",
                                                                 body: #"{"url":"https://example.com/v1/app-store/retention/\#(w.surfaceA)"}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/retention/realtime-url": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/retention/realtime-url", body: "", workspaceScoped: true),
            "POST /v1/apps/{appId}/retention/performance-test": Probe(method: "POST", path: "/v1/apps/\(w.appA.id)/retention/performance-test",
                                                                      body: #"{"originalTransactionId":"1"}"#, workspaceScoped: true),
            "GET /v1/apps/{appId}/retention/performance-test/{requestId}": Probe(method: "GET", path: "/v1/apps/\(w.appA.id)/retention/performance-test/r1",
                                                                                 body: "", workspaceScoped: true),
        ]
    }

    @Test("a key is read between the spaces and tabs HTTP allows around it; other characters around it make it invalid")
    func keyBetweenOptionalWhitespace() async throws {
        let server = try await TestServer.start()
        let key = server.adminKey
        func status(_ header: String) async -> Int {
            await server.client().send("GET", "/v1/workspaces", headers: [("Authorization", header)]).status
        }
        #expect(await status("Bearer \(key)") == 200)
        #expect(await status("Bearer \t \(key) \t") == 200)
        #expect(await status("Bearer \(key)\u{00A0}") == 401)
        #expect(await status("Bearer \(key)x") == 401)
        #expect(await status("Bearer  \t ") == 401)
        await server.stop()
    }

    @Test("every route is covered and every caller it must refuse is refused with the right status and code",
          arguments: StoreBackend.all)
    func matrix(_ backend: StoreBackend) async throws {
        let world = try await Self.makeWorld(backend)
        let probes = Self.probes(world)
        var cells = 0
        for route in world.server.application.router.routes {
            guard let probe = probes[route.label] else {
                Issue.record("no matrix entry for \(route.label); add one")
                continue
            }
            func send(_ key: String?) async -> HTTPResponse {
                await world.server.client(key).send(probe.method, probe.path, body: Array(probe.body.utf8))
            }
            guard case .keys(let allowed) = route.operation.access else {
                let response = await send(nil)
                if probe.signed {
                    #expect(response.status == 401 && response.errorCode == "invalid_signature", "\(route.label) unsigned: \(response.status)")
                } else {
                    #expect(![401, 403].contains(response.status), "\(route.label) is open but answered \(response.status)")
                }
                cells += 1
                continue
            }
            let none = await send(nil)
            #expect(none.status == 401 && none.errorCode == "missing_key", "\(route.label) without a key: \(none.status)")
            let junk = await send("lr_sk_not-a-real-key")
            #expect(junk.status == 401 && junk.errorCode == "invalid_key", "\(route.label) with a junk key: \(junk.status)")
            let real = world.serverKeyA.secret
            let forged = await send(String(real.dropLast()) + (real.last == "x" ? "y" : "x"))
            #expect(forged.status == 401, "\(route.label) with a forged secret: \(forged.status)")
            cells += 3
            for kind in KeyKind.allCases {
                if allowed.contains(kind.rawValue) {
                    let revoked = await send(world.revoked[kind]!.secret)
                    #expect(revoked.status == 401 && revoked.errorCode == "revoked_key", "\(route.label), revoked \(kind): \(revoked.status)")
                    if probe.workspaceScoped && kind != .admin {
                        let foreign = await send(world.keys[kind]!.secret)
                        #expect(foreign.status == 403 && foreign.errorCode == "workspace_forbidden",
                                "\(route.label) with a \(kind) key of another workspace: \(foreign.status) \(foreign.bodyText)")
                        cells += 1
                    }
                } else {
                    let wrong = await send(world.keys[kind]!.secret)
                    #expect(wrong.status == 403 && wrong.errorCode == "key_kind_forbidden", "\(route.label) with a \(kind) key: \(wrong.status)")
                }
                cells += 1
            }
        }
        #expect(cells > 60)
        // The probes changed nothing in workspace A: its key still works and its app kept its name.
        #expect(await world.server.client(world.serverKeyA.secret).get("/v1/me").status == 200)
        #expect(try await world.server.admin.get("/v1/apps/\(world.appA.id)").decoded(App.self).name == world.appA.name)
        #expect(try await world.server.admin.get("/v1/links/\(world.linkA.id)").decoded(Link.self).enabled)
        await world.server.stop()
    }
}
