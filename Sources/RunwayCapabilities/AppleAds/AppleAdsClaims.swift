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
        let due = try await services.store.read { db in try AppleAdsQueries.due(db, now: now) }
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
            guard try AppleAdsQueries.takeLease(db, appId: appId, installId: installId, now: now, until: now + lease),
                  let row = try AppleAdsQueries.taken(db, appId: appId, installId: installId), let token = row.token else { return nil }
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
            try AppleAdsQueries.recordAnswer(db, appId: appId, installId: installId, status: finalStatus, keepsAttribution: keepsAttribution,
                                             failed: failed, attempts: attempts, notFoundInARow: notFoundCount, nextAttemptAt: nextAttempt,
                                             httpStatus: status, error: lastError, resolvedAt: final ? now : nil, token: final ? nil : taken.token)
            if case .attributed(let fields, let clickAt, let impressionAt, let testData)? = answer {
                try AppleAdsQueries.storeAttribution(db, appId: appId, installId: installId, fields: fields, clickAt: clickAt,
                                                     impressionAt: impressionAt, testData: testData)
                if !testData { try AppleAdsQueries.attribute(db, appId: appId, installId: installId, fields: fields) }
            }
        }
        services.metrics.increment("linkrunway_apple_ads_answers_total", labels: [("status", status.map(String.init) ?? "error")])
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
