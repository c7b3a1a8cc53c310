import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// `POST /v1/claims/apple-ads`: store the AdServices token first, answer 200 once Apple's answer is known, 202 while
/// it is not.
enum AppleAdsRoutes {
    /// The longest an app waits for Apple inside its request; a slower Apple is answered 202 and asked again in the
    /// background with the full timeout.
    static let inlineSeconds: Double = 3

    static func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_apple_ads_answers_total", help: "AdServices answers, by HTTP status.")
        var inline = services.appleAds
        inline.timeoutSeconds = min(inline.timeoutSeconds, inlineSeconds)
        let claims = AppleAdsClaims(services: services, settings: inline)
        return [
            Route(method: .POST, pattern: "/v1/claims/apple-ads", operation: Operation(
                id: "claimAppleAds", summary: "An install's AdServices token: 200 with Apple's answer, or 202 while Apple has none yet",
                tag: "Apple Ads", access: Access.client, requestSchema: "AppleAdsClaimRequest",
                responses: [.json(200, "AppleAdsClaim", "Final: attributed, not_attributed, invalid or expired."),
                            .json(202, "AppleAdsClaim", "Pending: ask again after retryAfter seconds.")],
                maxBodyBytes: 16 * 1024, errors: [404], rateLimited: true)
            ) { request, context in
                let principal = try context.principal()
                guard let appId = principal.appId else { throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "needs a publishable key") }
                let body = try request.decode(AppleAdsClaimRequest.self)
                guard let installId = try Validate.installID(body.installId, field: "installId") else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "installId is required", field: "installId")
                }
                guard (1...8192).contains(body.token.utf8.count), body.token.utf8.allSatisfy({ b in
                    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2b || b == 0x2f || b == 0x3d || b == 0x2d || b == 0x5f
                }) else {
                    throw HTTPError.invalidField("token", "must be the AdServices token, 1 to 8192 base64 characters")
                }
                let now = services.clock.nowMilliseconds()
                let state: String = try await services.store.write { db in
                    guard let install = try InstallRecord.find(db, appId: appId, installId: installId) else {
                        throw HTTPError.notFound(ErrorCode.unknownInstall, "install \(installId) has not been matched or installed")
                    }
                    // The primary key decides which of two claims at the same instant is the install's; the other one
                    // finds it as if it had come second.
                    if try db.execute("""
                        INSERT INTO apple_ads_claims (app_id, install_id, workspace_id, token, status, attempts, not_found_in_a_row,
                                                      next_attempt_at, test_data, received_at)
                        VALUES (\(appId), \(installId), \(install.workspaceId), \(body.token), 'pending', 0, 0, \(now), 0, \(now))
                        ON CONFLICT (app_id, install_id) DO NOTHING
                        """) == 1 {
                        return "new"
                    }
                    let status = try db.first("SELECT status FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")?.string("status")
                    // A fresher token helps while Apple has no answer; a final answer is never asked for again.
                    if status == "pending" {
                        try db.execute("UPDATE apple_ads_claims SET token = \(body.token) WHERE app_id = \(appId) AND install_id = \(installId) AND status = 'pending'")
                    }
                    return status ?? "pending"
                }
                if state == "new" { try await claims.attempt(appId: appId, installId: installId) }
                let claim = try await services.store.read { db in
                    try AppleAdsClaims.wire(db.first("SELECT \(raw: AppleAdsClaims.columns) FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")!,
                                            now: services.clock.nowMilliseconds())
                }
                return try .json(claim, status: claim.status == "pending" ? 202 : 200)
            },
        ]
    }
}
