/// Someone who refers customers and earns commissions.
public struct Affiliate: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var name: String
    /// Your own reference for the affiliate (an account id in your system).
    public var externalId: String?
    public var createdAt: String

    public init(id: String, workspaceId: String, name: String, externalId: String?, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.name = name
        self.externalId = externalId
        self.createdAt = createdAt
    }
}

extension Affiliate: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Id."), "workspaceId": .id("Id."), "name": FieldNote("Name."), "externalId": FieldNote("Your reference."),
        "createdAt": .timestamp,
    ]
}

extension FieldNote {
    static let currency = FieldNote("ISO 4217.", pattern: WirePattern.currency)
}

/// `POST /v1/affiliates`.
public struct CreateAffiliateRequest: Codable, Sendable {
    public var workspaceId: String?
    public var name: String
    public var externalId: String?

    public init(workspaceId: String? = nil, name: String, externalId: String? = nil) {
        self.workspaceId = workspaceId
        self.name = name
        self.externalId = externalId
    }
}

extension CreateAffiliateRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace, "name": FieldNote("1 to 100 characters.", minLength: 1, maxLength: 100),
        "externalId": FieldNote("Your reference, 1 to 128 characters.", minLength: 1, maxLength: 128),
    ]
}

/// What an affiliate earns per payment.
public struct CommissionRule: Codable, Sendable, Equatable {
    /// `percent` of the customer price, or a `fixed` amount.
    public var kind: String
    /// 1–10000 (100.00%), for `percent`.
    public var basisPoints: Int?
    /// Minor units of `currency`, for `fixed`.
    public var amount: Int64?
    public var currency: String?
    /// `first` payment only, payments within `months` of the first, or `lifetime`.
    public var duration: String
    public var months: Int?

    public init(kind: String, basisPoints: Int? = nil, amount: Int64? = nil, currency: String? = nil, duration: String, months: Int? = nil) {
        self.kind = kind
        self.basisPoints = basisPoints
        self.amount = amount
        self.currency = currency
        self.duration = duration
        self.months = months
    }
}

extension CommissionRule: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "kind": .oneOf(["percent", "fixed"], "Percentage of the customer price, or a fixed amount."),
        "basisPoints": .between(1, 10000, "For percent: 3000 is 30%."), "amount": .between(1, 100_000_000, "For fixed: minor units."),
        "currency": .currency, "duration": .oneOf(["first", "months", "lifetime"], "Which payments earn."), "months": .between(1, 120),
    ]
}

/// An affiliate program of one app: its commission rule, holding period and offer.
public struct AffiliateProgram: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var appId: String
    public var name: String
    public var commission: CommissionRule
    /// Days a commission stays pending before it becomes payable (refunds inside it claw back before any payout).
    public var holdDays: Int
    /// A subscription offer code handed to referred customers.
    public var offerCode: String?
    /// Minutes after an affiliate click in which a deferred bind by network address matches.
    public var deferredMinutes: Int
    /// Purchases whose install's signed app transactions named only education or enterprise stores earn nothing.
    public var consumerStoresOnly: Bool
    public var createdAt: String

    public init(id: String, workspaceId: String, appId: String, name: String, commission: CommissionRule, holdDays: Int, offerCode: String?,
                deferredMinutes: Int, consumerStoresOnly: Bool = false, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.appId = appId
        self.name = name
        self.commission = commission
        self.holdDays = holdDays
        self.offerCode = offerCode
        self.deferredMinutes = deferredMinutes
        self.consumerStoresOnly = consumerStoresOnly
        self.createdAt = createdAt
    }
}

extension AffiliateProgram: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Id."), "workspaceId": .id("Id."), "appId": .id("Id."), "name": FieldNote("Name."),
        "offerCode": FieldNote("Offer code."), "consumerStoresOnly": FieldNote("Purchases of education or enterprise store installs earn nothing."),
        "createdAt": .timestamp,
    ]
}

/// `POST /v1/affiliate-programs`.
public struct CreateProgramRequest: Codable, Sendable {
    public var appId: String
    public var name: String
    public var commission: CommissionRule
    public var holdDays: Int?
    public var offerCode: String?
    public var deferredMinutes: Int?
    /// Pay only for purchases of consumer App Store installs (default false).
    public var consumerStoresOnly: Bool?

    public init(appId: String, name: String, commission: CommissionRule, holdDays: Int? = nil, offerCode: String? = nil, deferredMinutes: Int? = nil,
                consumerStoresOnly: Bool? = nil) {
        self.appId = appId
        self.name = name
        self.commission = commission
        self.holdDays = holdDays
        self.offerCode = offerCode
        self.deferredMinutes = deferredMinutes
        self.consumerStoresOnly = consumerStoresOnly
    }
}

extension CreateProgramRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": FieldNote("The app.", minLength: 1), "name": FieldNote("1 to 100 characters.", minLength: 1, maxLength: 100),
        "holdDays": .between(0, 365, "Default 30."), "offerCode": FieldNote("Letters and digits.", pattern: "^[A-Za-z0-9]{1,64}$"),
        "deferredMinutes": .between(1, 10080, "Default 60."),
        "consumerStoresOnly": FieldNote("true: a purchase whose install's signed app transactions named only education or enterprise stores earns nothing (answered ignored, reason non_consumer_store). Default false."),
    ]
}

/// A code an affiliate's audience types into the app.
public struct AffiliateCode: Codable, Sendable, Equatable {
    public var code: String
    public var affiliateId: String
    public var programId: String
    public var createdAt: String

    public init(code: String, affiliateId: String, programId: String, createdAt: String) {
        self.code = code
        self.affiliateId = affiliateId
        self.programId = programId
        self.createdAt = createdAt
    }
}

extension AffiliateCode: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "code": FieldNote("Upper case."), "affiliateId": .id("Id."), "programId": .id("Id."), "createdAt": .timestamp,
    ]
}

/// `POST /v1/affiliates/{id}/codes`: a code for one program; one is made up when `code` is absent.
public struct CreateAffiliateCodeRequest: Codable, Sendable {
    public var programId: String
    public var code: String?

    public init(programId: String, code: String? = nil) {
        self.programId = programId
        self.code = code
    }
}

extension CreateAffiliateCodeRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "programId": .program,
        "code": FieldNote("3 to 32 letters, digits, - or _ (case-insensitive).", pattern: "^[A-Za-z0-9_-]{3,32}$"),
    ]
}

extension FieldNote {
    static let program = FieldNote("The program.", minLength: 1)
}

/// `POST /v1/affiliates/{id}/links`: a link of the program's app that carries the affiliate.
public struct CreateAffiliateLinkRequest: Codable, Sendable {
    public var programId: String
    public var path: String?

    public init(programId: String, path: String? = nil) {
        self.programId = programId
        self.path = path
    }
}

extension CreateAffiliateLinkRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "programId": .program, "path": FieldNote("A custom path.", minLength: 1, maxLength: 200),
    ]
}

/// Where an app's App Store Server Notifications arrive: one per app and environment.
public struct AppStoreSurface: Codable, Sendable, Equatable {
    public var id: String
    public var appId: String
    /// `production` or `sandbox`.
    public var environment: String
    /// Give this to App Store Connect as the notification URL (path only; prefix it with your server).
    public var notificationPath: String
    /// Or forward from your own server here, HMAC-signed.
    public var forwardingPath: String
    /// Where Apple asks for retention messages: give `https://<your server>` + this to Configure Realtime URL.
    public var retentionPath: String
    public var createdAt: String

    public init(id: String, appId: String, environment: String, notificationPath: String, forwardingPath: String, retentionPath: String,
                createdAt: String) {
        self.id = id
        self.appId = appId
        self.environment = environment
        self.notificationPath = notificationPath
        self.forwardingPath = forwardingPath
        self.retentionPath = retentionPath
        self.createdAt = createdAt
    }
}

extension AppStoreSurface: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Id."), "appId": .id("Id."), "environment": .surfaceEnvironment,
        "notificationPath": FieldNote("For App Store Connect."), "forwardingPath": FieldNote("For your forwarder."),
        "retentionPath": FieldNote("For Apple's Configure Realtime URL (retention messages)."), "createdAt": .timestamp,
    ]
}

extension FieldNote {
    static let surfaceEnvironment = FieldNote.oneOf(["production", "sandbox"], "Which notifications it takes.")
}

/// `GET /v1/apps/{appId}/app-store-surfaces`.
public struct AppStoreSurfaceList: Codable, Sendable, Equatable {
    public var items: [AppStoreSurface]

    public init(items: [AppStoreSurface]) { self.items = items }
}

extension AppStoreSurfaceList: DescribedWireType {
    public static let notes: [String: FieldNote] = ["items": .list(of: nil, "Surfaces.")]
}

/// `POST /v1/apps/{appId}/app-store-surfaces`.
public struct CreateSurfaceRequest: Codable, Sendable {
    public var environment: String

    public init(environment: String) { self.environment = environment }
}

extension CreateSurfaceRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = ["environment": .surfaceEnvironment]
}

/// A new surface and the secret that signs forwards to it, shown once.
public struct CreatedSurface: Codable, Sendable, Equatable {
    public var surface: AppStoreSurface
    public var forwardingSecret: String

    public init(surface: AppStoreSurface, forwardingSecret: String) {
        self.surface = surface
        self.forwardingSecret = forwardingSecret
    }
}

extension CreatedSurface: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "forwardingSecret": FieldNote("Signs forwards; shown only here.", pattern: "^lrfs_[0-9a-f]{64}$"),
    ]
}

/// `POST /v1/app-store/bind`: a clipboard handoff (`signedClickId`) or a typed code (`refCode`).
public struct BindRequest: Codable, Sendable {
    public var signedClickId: String?
    public var refCode: String?
    public var installId: String?
    /// An App Attest token; required when the app requires attestation.
    public var attestation: String?

    public init(signedClickId: String? = nil, refCode: String? = nil, installId: String? = nil, attestation: String? = nil) {
        self.signedClickId = signedClickId
        self.refCode = refCode
        self.installId = installId
        self.attestation = attestation
    }
}

extension BindRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "signedClickId": FieldNote("From an affiliate link.", maxLength: 1024), "refCode": FieldNote("An affiliate's code.", maxLength: 64),
        "installId": .bindInstall, "attestation": .bindAttestation,
    ]
}

extension FieldNote {
    static let bindInstall = FieldNote("The SDK's install id.", pattern: WirePattern.installId)
    static let bindAttestation = FieldNote("An App Attest token.", maxLength: 1024)
}

/// `POST /v1/app-store/bind/deferred`: match by network address to a recent affiliate click.
public struct DeferredBindRequest: Codable, Sendable {
    public var surfaceId: String
    public var installId: String?
    /// An App Attest token; required when the app requires attestation.
    public var attestation: String?

    public init(surfaceId: String, installId: String? = nil, attestation: String? = nil) {
        self.surfaceId = surfaceId
        self.installId = installId
        self.attestation = attestation
    }
}

extension DeferredBindRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "surfaceId": FieldNote("The app's App Store surface.", minLength: 1), "installId": .bindInstall, "attestation": .bindAttestation,
    ]
}

/// The token the app sets on its StoreKit 2 purchase, minted here, and the program's offer code.
public struct BindResponse: Codable, Sendable, Equatable {
    public var appAccountToken: String
    public var offerCode: String?

    public init(appAccountToken: String, offerCode: String? = nil) {
        self.appAccountToken = appAccountToken
        self.offerCode = offerCode
    }
}

extension BindResponse: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "appAccountToken": FieldNote("A UUID to set on the StoreKit 2 purchase.", format: "uuid"), "offerCode": FieldNote("The program's offer."),
    ]
}

/// The body Apple (or your forwarder) sends.
public struct AppStoreNotificationRequest: Codable, Sendable {
    public var signedPayload: String

    public init(signedPayload: String) { self.signedPayload = signedPayload }
}

extension AppStoreNotificationRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = ["signedPayload": FieldNote("Apple's JWS, verbatim.", minLength: 1)]
}

/// What the server did with an App Store notification.
public enum AppStoreNotificationStatus: String, Codable, Sendable, CaseIterable, WireEnumeration {
    /// Processed: a commission accrued or clawed back, or none was due.
    case ok
    /// A free trial: nothing earned.
    case trial
    /// Processed before: this notification, or the transaction's commission.
    case duplicate
    /// No affiliate bind holds the purchase.
    case unattributed
    /// Nothing to do (a `reason` says why when the type does not).
    case ignored
    /// A sandbox notification at a production surface.
    case ignoredNonProduction = "ignored_non_production"
    /// Consent for the app transaction was rescinded: recorded, not processed.
    case consentRescinded = "consent_rescinded"

    /// Every status, as the API spells them, for descriptions.
    public static var listed: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// What a notification did (`AppStoreNotificationStatus`).
public struct AppStoreNotificationResult: Codable, Sendable, Equatable {
    public var status: AppStoreNotificationStatus
    public var notificationUUID: String?
    public var notificationType: String?
    /// Why a notification was `ignored` when its type alone does not say it (`AppStoreNotificationResult.reasons`).
    public var reason: String?
    /// The commission accrued (or clawed back, negative), in minor units.
    public var amount: Int64?
    public var currency: String?
    /// For a payment of a monthly plan with a commitment: which payment it is and what the whole commitment earns.
    public var commitment: CommissionCommitment?

    public init(status: AppStoreNotificationStatus, notificationUUID: String? = nil, notificationType: String? = nil, reason: String? = nil, amount: Int64? = nil,
                currency: String? = nil, commitment: CommissionCommitment? = nil) {
        self.status = status
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.reason = reason
        self.amount = amount
        self.currency = currency
        self.commitment = commitment
    }
}

extension AppStoreNotificationResult: DescribedWireType {
    /// Why a notification was ignored, when its type does not say it: its environment is neither Production nor
    /// Sandbox (at a sandbox surface), or its purchase came from an education or enterprise store's install under a
    /// program that pays for consumer stores only.
    public static let reasons = ["other_environment", "non_consumer_store"]

    public static let notes: [String: FieldNote] = [
        "status": FieldNote("What happened."),
        "notificationUUID": FieldNote("Apple's UUID."), "notificationType": FieldNote("Apple's type."), "currency": .currency,
        "reason": .oneOf(reasons, "Why it was ignored, when its type does not say it."),
        "commitment": FieldNote("A monthly plan's commitment: this payment's place in it and the committed total."),
    ]
}

/// A commission on one payment of a monthly plan with a 12-month commitment (Apple's `billingPlanType` and
/// `commitmentInfo`, https://developer.apple.com/documentation/appstoreservernotifications/transactioncommitmentinfo):
/// commissions accrue per monthly payment, and this shows the committed total beside each.
public struct CommissionCommitment: Codable, Sendable, Equatable {
    /// Apple's billing plan of the subscription.
    public var billingPlanType: String?
    /// Which payment of the commitment this is (1 for the first).
    public var billingPeriodNumber: Int?
    /// How many payments the commitment has.
    public var totalBillingPeriods: Int?
    /// What the whole commitment earns under the program's rule, in minor units of the commission's currency.
    public var committedAmount: Int64?
    /// When the commitment ends.
    public var expiresAt: String?

    public init(billingPlanType: String?, billingPeriodNumber: Int?, totalBillingPeriods: Int?, committedAmount: Int64?, expiresAt: String?) {
        self.billingPlanType = billingPlanType
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.committedAmount = committedAmount
        self.expiresAt = expiresAt
    }
}

extension CommissionCommitment: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "billingPlanType": FieldNote("Apple's billingPlanType."), "billingPeriodNumber": FieldNote("This payment's number in the commitment."),
        "totalBillingPeriods": FieldNote("Payments in the commitment."),
        "committedAmount": FieldNote("Commission on the whole commitment, in minor units."), "expiresAt": .timestamp,
    ]
}

/// One currency of an affiliate's balance, in minor units.
public struct CurrencyBalance: Codable, Sendable, Equatable {
    public var currency: String
    /// Accrued, still inside the holding period.
    public var pending: Int64
    /// Past the holding period, not yet paid (negative when clawbacks exceed it).
    public var payable: Int64
    public var paid: Int64
    /// From a sandbox surface: test money, never paid.
    public var test: Bool

    public init(currency: String, pending: Int64, payable: Int64, paid: Int64, test: Bool) {
        self.currency = currency
        self.pending = pending
        self.payable = payable
        self.paid = paid
        self.test = test
    }
}

extension CurrencyBalance: DescribedWireType {
    public static let notes: [String: FieldNote] = ["currency": .currency]
}

/// `GET /v1/affiliates/{id}/balance`.
public struct AffiliateBalance: Codable, Sendable, Equatable {
    public var affiliateId: String
    public var balances: [CurrencyBalance]

    public init(affiliateId: String, balances: [CurrencyBalance]) {
        self.affiliateId = affiliateId
        self.balances = balances
    }
}

extension AffiliateBalance: DescribedWireType {
    public static let notes: [String: FieldNote] = ["affiliateId": .id("Id."), "balances": .list(of: nil, "Per currency.")]
}

/// One line of a posting: debit positive, credit negative.
public struct LedgerEntry: Codable, Sendable, Equatable {
    /// `commission_expense`, `affiliate_pending`, `affiliate_payable` or `payouts`.
    public var account: String
    public var amount: Int64

    public init(account: String, amount: Int64) {
        self.account = account
        self.amount = amount
    }
}

extension LedgerEntry: DescribedWireType {
    /// The ledger's accounts.
    public static let accounts = ["commission_expense", "affiliate_pending", "affiliate_payable", "payouts"]

    public static let notes: [String: FieldNote] = ["account": .oneOf(accounts, "Account.")]
}

/// A balanced, immutable posting.
public struct LedgerPosting: Codable, Sendable, Equatable {
    public var id: String
    /// `accrual`, `release`, `clawback`, `reaccrual`, `payout`, or `duplicate_reversal` (a commission stored twice by an
    /// earlier version, reversed when the database was upgraded).
    public var kind: String
    public var affiliateId: String
    public var programId: String?
    public var currency: String
    public var test: Bool
    public var notificationUUID: String?
    public var transactionId: String?
    public var reference: String?
    public var createdAt: String
    public var entries: [LedgerEntry]
    /// For the accrual of a payment of a monthly plan with a commitment: the committed total beside this payment's.
    public var commitment: CommissionCommitment?

    public init(id: String, kind: String, affiliateId: String, programId: String?, currency: String, test: Bool, notificationUUID: String?,
                transactionId: String?, reference: String?, createdAt: String, entries: [LedgerEntry], commitment: CommissionCommitment? = nil) {
        self.id = id
        self.kind = kind
        self.affiliateId = affiliateId
        self.programId = programId
        self.currency = currency
        self.test = test
        self.notificationUUID = notificationUUID
        self.transactionId = transactionId
        self.reference = reference
        self.createdAt = createdAt
        self.entries = entries
        self.commitment = commitment
    }
}

extension LedgerPosting: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Id."), "kind": .oneOf(["accrual", "release", "clawback", "reaccrual", "payout", "duplicate_reversal"], "Kind."),
        "affiliateId": .id("Id."), "programId": .id("Id."), "currency": .currency, "notificationUUID": FieldNote("Apple's UUID."),
        "transactionId": FieldNote("Apple's transaction."), "reference": FieldNote("Payout reference."), "createdAt": .timestamp,
        "entries": .list(of: nil, "Balanced entries.", minItems: 2),
        "commitment": FieldNote("For an accrual on a monthly plan with a commitment: the committed total beside it."),
    ]
}

/// `POST /v1/affiliates/{id}/payouts`: pay out of the payable balance (all of it when `amount` is absent).
public struct CreatePayoutRequest: Codable, Sendable {
    public var currency: String
    public var amount: Int64?
    /// Your payment reference (a transfer id).
    public var reference: String?

    public init(currency: String, amount: Int64? = nil, reference: String? = nil) {
        self.currency = currency
        self.amount = amount
        self.reference = reference
    }
}

extension CreatePayoutRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "currency": .currency, "amount": .money(from: 1, "Minor units."),
        "reference": FieldNote("Your payment reference.", minLength: 1, maxLength: 128),
    ]
}

/// A line of `GET /v1/reports/payouts`.
public struct PayoutRow: Codable, Sendable, Equatable {
    public var affiliateId: String
    public var name: String
    public var externalId: String?
    public var currency: String
    public var pending: Int64
    public var payable: Int64
    public var paid: Int64
    public var commissions: Int

    public init(affiliateId: String, name: String, externalId: String?, currency: String, pending: Int64, payable: Int64, paid: Int64, commissions: Int) {
        self.affiliateId = affiliateId
        self.name = name
        self.externalId = externalId
        self.currency = currency
        self.pending = pending
        self.payable = payable
        self.paid = paid
        self.commissions = commissions
    }
}

extension PayoutRow: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "affiliateId": .id("Id."), "name": FieldNote("Name."), "externalId": FieldNote("Your reference."), "currency": .currency,
    ]
}

/// `GET /v1/reports/payouts`: what each affiliate is owed, live money only.
public struct PayoutReport: Codable, Sendable, Equatable {
    public var rows: [PayoutRow]

    public init(rows: [PayoutRow]) { self.rows = rows }
}

extension PayoutReport: DescribedWireType {
    public static let notes: [String: FieldNote] = ["rows": .list(of: nil, "Per affiliate and currency.")]
}
