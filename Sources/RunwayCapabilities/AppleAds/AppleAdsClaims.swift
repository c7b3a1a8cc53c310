import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Apple Ads claims: stored first, then resolved by asking AdServices under Apple's rules. 404 is retried every 5 s
/// three times in a row, then again every 10 minutes; 500 and network failures are retried with backoff; everything
/// stops being tried when the token's 24 hours are over (`expired`). 400 is `invalid`; a 200 is final either way.
/// Claims live in the store, so pending work survives a restart; a lease keeps two processes from posting one token
/// at the same time, and a crash after Apple answered only means the token is posted again.
package final class AppleAdsClaims: Service {
    package struct Settings: Sendable {
        /// The shortest wait for Apple's answer, whatever is configured: AdServices may hold a request for up to a
        /// second before it answers, so a limit at or under that would cut off answers on their way and turn them into
        /// retries. Two seconds leaves room for the network on top of Apple's hold.
        static let minimumTimeoutSeconds: Double = 2

        /// AdServices, or a fake one (`linkrunway dev fake-adservices`).
        var baseURL: String = "https://api-adservices.apple.com"
        /// How long one request waits for Apple; never below `minimumTimeoutSeconds`.
        var timeoutSeconds: Double = 10
        var pollInterval: Duration = .seconds(1)
        var notFoundRetryMilliseconds: Int64 = 5_000
        var notFoundInARow = 3
        var pendingRetryMilliseconds: Int64 = 600_000
        var errorBaseMilliseconds: Int64 = 30_000
        var errorMaxMilliseconds: Int64 = 1_800_000
        var leaseMilliseconds: Int64 = 60_000
        var tokenLifetimeMilliseconds: Int64 = 24 * 3_600_000
    }

    let services: ServerServices
    let settings: Settings
    private let session: URLSession

    package init(services: ServerServices, settings: Settings) {
        var settings = settings
        settings.timeoutSeconds = max(settings.timeoutSeconds, Settings.minimumTimeoutSeconds)
        self.services = services
        self.settings = settings
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = settings.timeoutSeconds
        configuration.timeoutIntervalForResource = settings.timeoutSeconds
        session = URLSession(configuration: configuration)
    }

    package var name: String { "apple_ads_claims" }

    /// Runs until cancelled.
    package func run() async {
        while !Task.isCancelled {
            do {
                while try await resolveDue() > 0, !Task.isCancelled {}
            } catch {
                services.logger.warn("Apple Ads claims failed", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: settings.pollInterval)
        }
    }

    /// Asks Apple about every claim that is due; returns how many it asked about.
    func resolveDue() async throws -> Int {
        let now = services.clock.nowMilliseconds()
        let due = try await services.store.read { db in
            try db.query("""
                SELECT app_id, install_id FROM apple_ads_claims
                WHERE status = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until < \(now))
                ORDER BY next_attempt_at LIMIT 20
                """, as: AppleAdsRows.Due.self)
        }
        var asked = 0
        for claim in due where try await attempt(appId: claim.appId, installId: claim.installId) {
            asked += 1
        }
        return asked
    }

    /// Takes the claim's lease and asks Apple once; false when another worker holds it or it is not due.
    @discardableResult
    func attempt(appId: String, installId: String) async throws -> Bool {
        let now = services.clock.nowMilliseconds()
        let lease = settings.leaseMilliseconds
        let taken: (token: String, receivedAt: Int64, attempts: Int64, notFound: Int64)? = try await services.store.write { db in
            guard try db.execute("""
                UPDATE apple_ads_claims SET lease_until = \(now + lease)
                WHERE app_id = \(appId) AND install_id = \(installId) AND status = 'pending' AND next_attempt_at <= \(now)
                  AND (lease_until IS NULL OR lease_until < \(now))
                """) == 1, let row = try db.first("SELECT token, received_at, attempts, not_found_in_a_row FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)",
                                                  as: AppleAdsRows.Taken.self),
                let token = row.token else { return nil }
            return (token, row.receivedAt, row.attempts, row.notFoundInARow)
        }
        guard let taken else { return false }
        let (status, body, failure) = await post(token: taken.token)
        try await record(appId: appId, installId: installId, status: status, body: body, failure: failure, taken: taken)
        return true
    }

    private func post(token: String) async -> (Int?, [UInt8], String?) {
        guard let url = URL(string: settings.baseURL.hasSuffix("/") ? settings.baseURL + "api/v1/" : settings.baseURL + "/api/v1/") else {
            return (nil, [], "invalid base URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(token.utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        do {
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode, Array(data.prefix(64 * 1024)), nil)
        } catch {
            return (nil, [], String(String(describing: error).prefix(300)))
        }
    }

    /// Stores what Apple said and decides what happens next.
    private func record(appId: String, installId: String, status: Int?, body: [UInt8], failure: String?,
                        taken: (token: String, receivedAt: Int64, attempts: Int64, notFound: Int64)) async throws {
        let now = services.clock.nowMilliseconds()
        let expiresAt = taken.receivedAt + settings.tokenLifetimeMilliseconds
        let attempts = taken.attempts + 1
        var reading: AppleAdsPayload.Reading?
        var newStatus = "pending"
        var next = now
        var notFound: Int64 = 0
        var error = failure
        switch status {
        case 200?:
            let answer = AppleAdsPayload.read(body)
            reading = answer
            switch answer {
            case .attributed: newStatus = "attributed"
            case .notAttributed: newStatus = "not_attributed"
            case .unreadable(let why):
                error = "unreadable answer: \(why)"
                next = now + backoff(attempts)
            }
        case 404?:
            notFound = taken.notFound + 1
            next = now + (notFound < Int64(settings.notFoundInARow) ? settings.notFoundRetryMilliseconds : settings.pendingRetryMilliseconds)
            if notFound >= Int64(settings.notFoundInARow) { notFound = 0 }
            error = "404: Apple has no record yet"
        case 400?:
            newStatus = "invalid"
            error = "400: Apple says the token is invalid"
        default:
            next = now + backoff(attempts)
            error = error ?? "HTTP \(status ?? 0)"
        }
        if newStatus == "pending", next >= expiresAt { newStatus = "expired" }
        let final = newStatus != "pending"
        let failed = ["invalid", "expired"].contains(newStatus), keepsAttribution = failed || newStatus == "not_attributed"
        let finalStatus = newStatus, nextAttempt = next, notFoundCount = notFound, lastError = error, answer = reading
        try await services.store.write { db in
            // A claim asked again with a new token (`AppleAdsQueries.renew`) keeps its attribution when the new token
            // fails or is not attributed: tracking consent adds detail to Apple's answer, it does not take the ad away.
            try db.execute("""
                UPDATE apple_ads_claims SET status = CASE
                        WHEN renewals > 0 AND campaign_id IS NOT NULL AND \(keepsAttribution ? 1 : 0) = 1 THEN 'attributed'
                        WHEN renewals > 0 AND \(failed ? 1 : 0) = 1 THEN 'not_attributed'
                        ELSE \(finalStatus) END,
                    attempts = \(attempts), not_found_in_a_row = \(notFoundCount),
                    next_attempt_at = \(nextAttempt), lease_until = NULL, last_status = \(status.map(Int64.init)), last_error = \(lastError),
                    resolved_at = \(final ? now : nil), token = \(final ? nil : taken.token)
                WHERE app_id = \(appId) AND install_id = \(installId)
                """)
            if case .attributed(let fields, let clickAt, let impressionAt, let testData)? = answer {
                try db.execute("""
                    UPDATE apple_ads_claims SET org_id = \(fields.orgId), campaign_id = \(fields.campaignId), ad_group_id = \(fields.adGroupId),
                        keyword_id = \(fields.keywordId), ad_id = \(fields.adId), conversion_type = \(fields.conversionType),
                        claim_type = \(fields.claimType), click_date = \(clickAt), impression_date = \(impressionAt),
                        country_or_region = \(fields.countryOrRegion), supply_placement = \(fields.supplyPlacement), test_data = \(testData)
                    WHERE app_id = \(appId) AND install_id = \(installId)
                    """)
                if !testData { try Self.attribute(db, appId: appId, installId: installId, fields: fields) }
            }
        }
        services.metrics.increment("linkrunway_apple_ads_answers_total", labels: [("status", status.map(String.init) ?? "error")])
    }

    /// The install, and the events it already has, take the Apple Ads campaign, ad group and keyword. Apple Ads is
    /// Apple's own deterministic claim, so it replaces an estimate (probabilistic, view-through) or no match; a
    /// referrer match to one of our links keeps its source and gains the Apple Ads ids, and so does a returning install
    /// (consent given again), which must stay out of install counts.
    static func attribute(_ db: any SQLExecutor, appId: String, installId: String, fields: AppleAdsAttribution) throws {
        try db.execute("""
            UPDATE installs SET apple_ads_campaign_id = \(fields.campaignId), apple_ads_ad_group_id = \(fields.adGroupId),
                apple_ads_keyword_id = \(fields.keywordId),
                source = CASE WHEN method = 'referrer' OR source = 'returning' THEN source ELSE 'apple_ads' END
            WHERE app_id = \(appId) AND install_id = \(installId)
            """)
        try db.execute("""
            UPDATE events SET apple_ads_campaign_id = \(fields.campaignId), apple_ads_ad_group_id = \(fields.adGroupId),
                apple_ads_keyword_id = \(fields.keywordId),
                source = CASE WHEN method = 'referrer' OR source = 'returning' THEN source ELSE 'apple_ads' END
            WHERE app_id = \(appId) AND install_id = \(installId)
            """)
    }

    func backoff(_ attempts: Int64) -> Int64 {
        min(settings.errorMaxMilliseconds, settings.errorBaseMilliseconds << min(attempts - 1, 20))
    }
}

extension ServerServices {
    /// Where and how Apple Ads claims are resolved, as configured.
    package var appleAds: AppleAdsClaims.Settings {
        var settings = AppleAdsClaims.Settings()
        settings.baseURL = self.settings[AppleAdsSettings.self].url
        settings.timeoutSeconds = self.settings[AppleAdsSettings.self].timeoutSeconds
        return settings
    }
}
