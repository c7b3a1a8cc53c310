import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// Apple's `Get Retention Message` calls, at an App Store surface's `retentionPath`: verified as notifications are
/// (the chain to Apple's root, the App Store id in production, the environment, and a `signedDate` within ten minutes
/// of now), answered with the message the app's first holding rule names for where the subscriber came from, within
/// Apple's 700 ms (https://developer.apple.com/documentation/retentionmessaging/setting-up-retention-messaging-endpoint).
///
/// When the choice takes longer than its budget the fallback answers; when nothing answers, the response is 204 and
/// Apple shows the default message it has for the product and locale. A request that does not verify is refused with
/// 400 `app_store_invalid` (Apple documents no status for it: it only advises not to answer such a request, and any
/// answer that is not a valid message leads Apple to its default).
struct RetentionRealtimeHandlers: Sendable {
    static let maxSkewMilliseconds: Int64 = 600_000

    let services: ServerServices

    func respond(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let started = services.monotonic.now()
        let surfaceId = SurfaceId(try context.parameter("surfaceId"))
        let runtime = services.retention, store = services.store
        guard let surface = try await runtime.surface(id: surfaceId), let app = try await services.apps.app(id: surface.appId.rawValue) else {
            throw RequestError.notFound("no App Store surface \(surfaceId)")
        }
        let environment = surface.environment
        guard let verifier = services.appStoreVerifier else { throw AffiliatesError.appStoreUnconfigured }
        let signedPayload = try NotificationVerification.signedPayload(request.body)
        let now = services.clock.nowMilliseconds()
        let asked: RetentionRealtimeRequest
        switch verifier.verifyRetentionRequest(signedPayload, appAppleId: app.appStoreId.flatMap { Int64($0) },
                                               environment: environment, now: services.clock.now()) {
        case .success(let verified): asked = verified
        case .failure(let failure):
            services.metrics.increment("linkrunway_retention_requests_total", labels: [("answer", "refused")])
            throw AffiliatesError.appStoreInvalid("\(failure.status): \(failure)")
        }
        guard abs(asked.signedDate - now) <= Self.maxSkewMilliseconds else {
            services.metrics.increment("linkrunway_retention_requests_total", labels: [("answer", "refused")])
            throw AffiliatesError.appStoreInvalid("signedDate is more than ten minutes from now: a replayed or delayed request")
        }

        let appId = surface.appId, original = TransactionId(rawValue: asked.originalTransactionId)
        // The rules (when not cached) and the subscription are read within the budget; past it, the fallback of the
        // rules last read answers, or nothing when they were never read.
        let chosen = await RetentionRuntime.within(milliseconds: runtime.budgetMilliseconds.load(ordering: .relaxed)) {
            let configuration = try await runtime.configuration(appId: appId)
            let acquisition = try await store.read { db in
                try SubscriptionAcquisitions.acquisition(db, appId: appId, environment: environment, originalTransactionId: original)
            } ?? .unknown
            return (acquisition, RetentionChoice.decide(configuration.rules, states: configuration.states[environment.surfaceName] ?? [:], acquisition: acquisition,
                                                        productId: asked.productId, locale: asked.userLocale))
        }
        func fallback() -> RetentionDecision {
            let configuration = runtime.lastConfiguration(appId: appId) ?? .empty
            return RetentionChoice.fallback(configuration.rules, states: configuration.states[environment.surfaceName] ?? [:])
        }
        let late: Bool, acquisition: SubscriptionAcquisition, decision: RetentionDecision
        switch chosen {
        case .success(let (found, decided))?: (late, acquisition, decision) = (false, found, decided)
        case .failure(let error)?:
            services.logger.warn("retention choice failed; answered with the fallback", ["app": .string(app.id), "error": .string(String(describing: error))])
            (late, acquisition, decision) = (false, .unknown, fallback())
        case nil: (late, acquisition, decision) = (true, .unknown, fallback())
        }
        let elapsed = started.duration(to: services.monotonic.now())
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        services.metrics.increment("linkrunway_retention_requests_total",
                                   labels: [("answer", late ? "late" : decision.answer == nil ? "none" : decision.rule == "fallback" ? "fallback" : "rule")])
        let answered = RetentionMessagingQueries.Answered(appId: appId, environment: environment, request: asked.requestIdentifier,
                                                           originalTransactionId: asked.originalTransactionId, productId: asked.productId,
                                                           locale: asked.userLocale, source: acquisition.source, decision: decision, late: late,
                                                           elapsedMicros: micros, at: now)
        // Counted after the answer is on its way: the record is a statistic, and the answer must not wait for a commit.
        let logger = services.logger
        Task {
            do {
                try await store.write { db in try RetentionMessagingQueries.recordRequest(db, answered) }
            } catch {
                logger.warn("a retention request could not be recorded", ["app": .string(answered.appId.rawValue), "error": .string(String(describing: error))])
            }
        }
        guard let answer = decision.answer else { return HTTPResponse(status: 204) }
        return .json(RetentionChoice.body(answer))
    }
}
