import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each affiliate route.
extension Operation {
    static let createAffiliate = Operation(
        id: "createAffiliate", summary: "Add an affiliate", tag: "Affiliates", access: Access.management,
        requestSchema: .of(CreateAffiliateRequest.self), responses: [.json(201, Affiliate.self, "The affiliate.")], maxBodyBytes: 8 * 1024)

    static let listAffiliates = Operation(
        id: "listAffiliates", summary: "List affiliates", tag: "Affiliates", access: Access.management,
        responses: [.json(200, Page<Affiliate>.self, "A page of affiliates.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery, errors: [404])

    static let createAffiliateProgram = Operation(
        id: "createAffiliateProgram", summary: "Add an affiliate program to an app: its commission, holding period and offer",
        tag: "Affiliates", access: Access.management, requestSchema: .of(CreateProgramRequest.self),
        responses: [.json(201, AffiliateProgram.self, "The program.")], maxBodyBytes: 8 * 1024)

    static let listAffiliatePrograms = Operation(
        id: "listAffiliatePrograms", summary: "List affiliate programs", tag: "Affiliates", access: Access.management,
        responses: [.json(200, Page<AffiliateProgram>.self, "A page of programs.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery, errors: [404])

    static let createAffiliateCode = Operation(
        id: "createAffiliateCode", summary: "Give an affiliate a code for a program (customers type it into the app)",
        tag: "Affiliates", access: Access.management, requestSchema: .of(CreateAffiliateCodeRequest.self),
        responses: [.json(201, AffiliateCode.self, "The code.")], maxBodyBytes: 4 * 1024, errors: [409])

    static let listAffiliateCodes = Operation(
        id: "listAffiliateCodes", summary: "An affiliate's codes, oldest first (one page holds them all)",
        tag: "Affiliates", access: Access.management, responses: [.json(200, Page<AffiliateCode>.self, "The codes.")])

    static let createAffiliateLink = Operation(
        id: "createAffiliateLink", summary: "Make a link of the program's app that carries the affiliate (its click ids bind to them)",
        tag: "Affiliates", access: Access.management, requestSchema: .of(CreateAffiliateLinkRequest.self),
        responses: [.json(201, Link.self, "The link.")], maxBodyBytes: 4 * 1024, errors: [409])

    static let createAppStoreSurface = Operation(
        id: "createAppStoreSurface", summary: "Where an app's App Store Server Notifications arrive; the forwarding secret is in this response only",
        tag: "Affiliates", access: Access.management, requestSchema: .of(CreateSurfaceRequest.self),
        responses: [.json(201, CreatedSurface.self, "The surface and its forwarding secret.")], maxBodyBytes: 1024)

    static let listAppStoreSurfaces = Operation(
        id: "listAppStoreSurfaces", summary: "An app's App Store surfaces (never their secrets)", tag: "Affiliates",
        access: Access.management, responses: [.json(200, AppStoreSurfaceList.self, "The surfaces.")])

    static let listAppStoreNotifications = Operation(
        id: "listAppStoreNotifications",
        summary: "An app's App Store notifications, newest first: the answer each got and Apple's values as sent, known or not",
        tag: "Affiliates", access: Access.management, responses: [.json(200, Page<AppStoreNotificationRecord>.self, "A page of notifications.")],
        query: NotificationList.query, errors: [404])

    static let bindAppAccountToken = Operation(
        id: "bindAppAccountToken", summary: "Mint the appAccountToken for a purchase referred by an affiliate link (signedClickId) or code (refCode)",
        tag: "Affiliates", access: Access.client, requestSchema: .of(BindRequest.self),
        responses: [.json(200, BindResponse.self, "The token to set on the StoreKit 2 purchase.")], maxBodyBytes: 4 * 1024, errors: [404], rateLimited: true)

    static let bindDeferred = Operation(
        id: "bindDeferred", summary: "Mint the appAccountToken for the newest affiliate click from this network address, if recent enough",
        tag: "Affiliates", access: Access.client, requestSchema: .of(DeferredBindRequest.self),
        responses: [.json(200, BindResponse.self, "The token to set on the StoreKit 2 purchase.")], maxBodyBytes: 1024, errors: [404], rateLimited: true)

    static let receiveAppStoreNotification = Operation(
        id: "receiveAppStoreNotification", summary: "App Store Server Notifications v2, as Apple sends them",
        tag: "Affiliates", access: .open, requestSchema: .of(AppStoreNotificationRequest.self),
        responses: [.json(200, AppStoreNotificationResult.self, "Processed: \(AppStoreNotificationStatus.listed) (ignored with a reason when its type does not say why).")],
        maxBodyBytes: 256 * 1024, errors: [400, 404, 503], rateLimited: true)

    static let forwardAppStoreNotification = Operation(
        id: "forwardAppStoreNotification",
        summary: "A notification forwarded by your server: x-ea-timestamp (unix seconds) and x-ea-signature (sha256=<hex HMAC>)",
        tag: "Affiliates", access: .open, requestSchema: .of(AppStoreNotificationRequest.self),
        responses: [.json(200, AppStoreNotificationResult.self, "Processed: \(AppStoreNotificationStatus.listed) (ignored with a reason when its type does not say why).")],
        maxBodyBytes: 256 * 1024, errors: [400, 401, 404, 503], rateLimited: true)

    static let affiliateBalance = Operation(
        id: "affiliateBalance", summary: "An affiliate's pending, payable and paid commissions per currency (test money apart)",
        tag: "Affiliates", access: Access.management, responses: [.json(200, AffiliateBalance.self, "The balances.")])

    static let affiliateLedger = Operation(
        id: "affiliateLedger", summary: "An affiliate's ledger postings, oldest first, each with its balanced entries",
        tag: "Affiliates", access: Access.management, responses: [.json(200, Page<LedgerPosting>.self, "A page of postings.")],
        query: pageQuery)

    static let createPayout = Operation(
        id: "createPayout", summary: "Record a payout from the affiliate's payable balance (all of it by default)",
        tag: "Affiliates", access: Access.management, requestSchema: .of(CreatePayoutRequest.self),
        responses: [.json(201, LedgerPosting.self, "The payout posting.")], maxBodyBytes: 2 * 1024, errors: [409], idempotent: true)

    static let payoutReport = Operation(
        id: "payoutReport", summary: "What each affiliate has pending, payable and paid, per currency (live money only)",
        tag: "Reports", access: Access.management, responses: [.json(200, PayoutReport.self, "The report (send Accept: text/csv for CSV).")],
        query: [QueryParameterDoc("workspaceId", "The workspace (admin keys)."), QueryParameterDoc("currency", "Only this currency.")])
}
