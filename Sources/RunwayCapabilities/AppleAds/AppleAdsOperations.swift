import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about the Apple Ads routes.
extension Operation {
    static let claimAppleAds = Operation(
        id: "claimAppleAds", summary: "An install's AdServices token: 200 with Apple's answer, or 202 while Apple has none yet",
        tag: "Apple Ads", access: Access.client, requestSchema: .of(AppleAdsClaimRequest.self),
        responses: [.json(200, AppleAdsClaim.self, "Final: attributed, not_attributed, invalid or expired."),
                    .json(202, AppleAdsClaim.self, "Pending: ask again after retryAfter seconds.")],
        maxBodyBytes: 16 * 1024, errors: [404], rateLimited: true)

    static let appleAdsReport = Operation(
        id: "appleAdsReport", summary: "Apple Ads claims by what Apple answered: attributed by conversion type, not attributed by Apple, unanswered",
        tag: "Reports", access: Access.management,
        responses: [.json(200, AppleAdsReport.self, "The report (send Accept: text/csv for CSV).")],
        query: ReportQuery.documentation(AppleAdsHandlers.groupings))
}
