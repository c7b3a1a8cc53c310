import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// An app's In-App Purchase key, and replaying the notifications Apple sent (or tried to send) from the App Store
/// Server API's history. Apple retries a production notification five times, 1, 12, 24, 48 and 72 hours after the
/// attempt before, and sends a sandbox one once
/// (https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications);
/// what the server missed meanwhile is still in the history, and each replayed notification takes the normal path,
/// where one already processed is a `duplicate` and changes nothing.
struct AppStoreReplayHandlers: Sendable {
    /// What an app's In-App Purchase key is sealed for.
    static let keyPurpose = "app_store_api_keys.private_key"
    /// How far back Apple keeps history in an environment (Get Notification History).
    static func historyDays(_ environment: AppStoreVerifier.Environment) -> Int64 { environment == .sandbox ? 30 : 180 }
    static let requestTimeoutSeconds: Double = 15

    let services: ServerServices

    func setKey(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        let body = try request.decode(SetAppStoreKeyRequest.self)
        guard UUID(uuidString: body.issuerId) != nil else { throw RequestError.invalidField("issuerId", "must be the issuer id App Store Connect shows (a UUID)") }
        guard body.keyId.utf8.count == 10, body.keyId.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw RequestError.invalidField("keyId", "must be the key's id: ten upper-case letters and digits")
        }
        guard body.privateKey.utf8.count <= 4096, AppStoreServerAPIToken.privateKey(pem: body.privateKey) != nil else {
            throw RequestError.invalidField("privateKey", "must be the .p8 file's text: a P-256 private key in PEM")
        }
        let now = services.clock.nowMilliseconds()
        let sealed = services.secretBox.seal(body.privateKey, purpose: Self.keyPurpose)
        try await services.store.write { db in
            try AppStoreReplayQueries.setKey(db, appId: AppId(app.id), issuerId: body.issuerId, keyId: body.keyId, sealedKey: sealed, now: now)
        }
        return try .json(AppStoreKeyStatus(configured: true, issuerId: body.issuerId, keyId: body.keyId, updatedAt: Timestamp.iso(now)))
    }

    func key(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        guard let row = try await services.store.read({ db in try AppStoreReplayQueries.key(db, appId: AppId(app.id)) }) else {
            return try .json(AppStoreKeyStatus(configured: false))
        }
        return try .json(AppStoreKeyStatus(configured: true, issuerId: row.issuerId, keyId: row.keyId, updatedAt: Timestamp.iso(row.updatedAt)))
    }

    func deleteKey(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        _ = try await services.store.write { db in try AppStoreReplayQueries.deleteKey(db, appId: AppId(app.id)) }
        return HTTPResponse(status: 204)
    }

    func replay(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        let body = try request.decode(ReplayNotificationsRequest.self)
        guard let environment = AppStoreVerifier.Environment(surfaceName: body.environment ?? AppStoreVerifier.Environment.production.surfaceName) else {
            throw RequestError.invalidField("environment", "must be production or sandbox")
        }
        let historyDays = Self.historyDays(environment)
        let now = services.clock.nowMilliseconds()
        guard let since = ISOTime.milliseconds(body.since) else { throw RequestError.invalidField("since", "must be an ISO 8601 time") }
        let until = try body.until.map { text in
            guard let until = ISOTime.milliseconds(text) else { throw RequestError.invalidField("until", "must be an ISO 8601 time") }
            return until
        } ?? now
        guard since < until else { throw RequestError.invalidField("since", "must be before until") }
        guard since >= now - historyDays * 86_400_000 else {
            throw RequestError.invalidField("since", "Apple keeps \(historyDays) days of \(environment.surfaceName) history")
        }
        let (surfaceId, client) = try await self.client(app, environment: environment)
        let page = try await client.page(startDate: since, endDate: until, paginationToken: body.paginationToken, now: services.clock.now())
        var result = NotificationReplayPage(environment: environment.surfaceName, surfaceId: surfaceId.rawValue, since: Timestamp.iso(since), until: Timestamp.iso(until),
                                            fetched: page.signedPayloads.count, new: 0, duplicate: 0, refused: 0, refusals: [],
                                            hasMore: page.hasMore, paginationToken: page.hasMore ? page.paginationToken : nil)
        let notifications = NotificationHandlers(services: services)
        for signedPayload in page.signedPayloads {
            let delivery: JSONValue = ["signedPayload": .string(signedPayload)]
            do {
                let processed = try await notifications.counted(delivery.serializedBytes(), surfaceId: surfaceId)
                if processed.status == .duplicate { result.duplicate += 1 } else { result.new += 1 }
            } catch let refusal as any Refusal {
                result.refused += 1
                let uuid = (try? CompactJWS.parse(signedPayload))?.payload["notificationUUID"]?.stringValue
                result.refusals.append(ReplayRefusal(notificationUUID: uuid.map { String($0.prefix(64)) }, code: refusal.detail.code,
                                                     message: refusal.detail.message))
            }
        }
        services.metrics.increment("linkrunway_app_store_replayed_total", labels: [("environment", environment.surfaceName)], by: Double(result.fetched))
        return try .json(result)
    }

    /// The app's surface of `environment` and a client signing with its In-App Purchase key.
    private func client(_ app: App, environment: AppStoreVerifier.Environment) async throws -> (surfaceId: SurfaceId, client: AppStoreServerAPIClient) {
        let (surfaceId, keyRow) = try await services.store.read { db in
            (try AppStoreReplayQueries.replaySurface(db, appId: AppId(app.id), environment: environment), try AppStoreReplayQueries.key(db, appId: AppId(app.id)))
        }
        guard let surfaceId else { throw AppStoreReplayError.noSurface(environment: environment) }
        guard let keyRow else { throw AppStoreReplayError.keyMissing }
        guard let pem = services.secretBox.open(keyRow.privateKey, purpose: Self.keyPurpose),
              let privateKey = AppStoreServerAPIToken.privateKey(pem: pem) else {
            throw StoreError.failed("the app's In-App Purchase key does not open with the secret key file")
        }
        let client = AppStoreServerAPIClient(
            baseURL: AppStoreServerAPIClient.baseURL(environment: environment, configured: services.settings[AppStoreAPISettings.self].url),
            token: AppStoreServerAPIToken(issuerId: keyRow.issuerId, keyId: keyRow.keyId, bundleId: app.bundleId,
                                          key: privateKey),
            timeoutSeconds: Self.requestTimeoutSeconds)
        return (surfaceId, client)
    }

    /// Apple signs the `TEST` notification for the app's bundle id and App Store id and sends it only to its
    /// developer's URL, and the key that asks is the developer's: processed at the production surface, it proves the
    /// App Store id. Apple may need a moment before the test's status is there; it is asked three times, a second apart.
    func testNotification(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let (surfaceId, client) = try await self.client(app, environment: .production)
        let token = try await client.requestTestNotification(now: services.clock.now())
        var signedPayload: String?
        for attempt in 1...3 {
            do {
                signedPayload = try await client.testNotification(token: token, now: services.clock.now())
                break
            } catch {
                if attempt == 3 { throw error }
                try await Task.sleep(for: .seconds(1))
            }
        }
        let delivery: JSONValue = ["signedPayload": .string(signedPayload ?? "")]
        let processed = try await NotificationHandlers(services: services).counted(delivery.serializedBytes(), surfaceId: surfaceId)
        let status = try await services.store.read { db in try AppHandlers.status(db, app) }
        return try .json(AppStoreTestNotificationResult(testNotificationToken: token, notificationStatus: processed.status, appStoreId: status))
    }
}
