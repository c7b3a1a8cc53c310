import AppleFormats
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The affiliates capability's rows as it reads them (`RowDecoder`: each property names its column), and the wire
/// forms made from them.
enum AffiliateRows {
    struct AffiliateRow: Decodable {
        let id: String
        let workspaceId: String
        let name: String
        let externalId: String?
        let createdAt: Int64

        static let columns = "id, workspace_id, name, external_id, created_at"

        var wire: Affiliate { Affiliate(id: id, workspaceId: workspaceId, name: name, externalId: externalId, createdAt: Timestamp.iso(createdAt)) }
    }

    struct ProgramRow: Decodable {
        let id: String
        let workspaceId: String
        let appId: String
        let name: String
        /// The commission rule as stored (`CommissionRules.decode`).
        let commission: String
        let holdDays: Int
        let offerCode: String?
        let deferredMinutes: Int
        let consumerStoresOnly: Bool
        let createdAt: Int64

        static let columns = "id, workspace_id, app_id, name, commission, hold_days, offer_code, deferred_minutes, consumer_stores_only, created_at"

        func wire() throws -> AffiliateProgram {
            AffiliateProgram(id: id, workspaceId: workspaceId, appId: appId, name: name, commission: try CommissionRules.decode(commission),
                             holdDays: holdDays, offerCode: offerCode, deferredMinutes: deferredMinutes, consumerStoresOnly: consumerStoresOnly,
                             createdAt: Timestamp.iso(createdAt))
        }
    }

    struct CodeRow: Decodable {
        let code: String
        let affiliateId: String
        let programId: String
        let createdAt: Int64

        var wire: AffiliateCode { AffiliateCode(code: code, affiliateId: affiliateId, programId: programId, createdAt: Timestamp.iso(createdAt)) }
    }

    /// An App Store surface: where one app's notifications of one environment arrive.
    struct Surface: Decodable {
        let id: SurfaceId
        let appId: AppId
        /// As stored: `production` or `sandbox` (`appStoreEnvironment` reads it).
        let environment: String
        let createdAt: Int64

        /// The App Store environment whose notifications the surface takes; nil for a stored name that is neither,
        /// which no route can store: such a surface takes nothing.
        var appStoreEnvironment: AppStoreVerifier.Environment? { AppStoreVerifier.Environment(surfaceName: environment) }
    }

    /// The affiliate, program, offer and app a link or a code refers to.
    struct Referral: Decodable {
        let affiliateId: AffiliateId
        let programId: ProgramId
        let offerCode: String?
        let appId: AppId
    }

    /// An affiliate click a deferred bind may take, with its program's window.
    struct AffiliateClick: Decodable {
        let token: String
        let createdAt: Int64
        let affiliateId: AffiliateId
        let programId: ProgramId
        let offerCode: String?
        let deferredMinutes: Int64
    }

    /// The bind a purchase belongs to, with its program's terms.
    struct Binding: Decodable {
        let token: BindToken
        let affiliateId: AffiliateId
        let programId: ProgramId
        /// The program's rule, as stored (decoded when a payment accrues).
        let commission: String
        let holdDays: Int
        let consumerStoresOnly: Bool

        static let columns = "t.token, t.affiliate_id, t.program_id, p.commission, p.hold_days, p.consumer_stores_only"
    }

    /// A bind as the install's data export shows it.
    struct Bind: Decodable {
        let token: String
        let affiliateId: String
        let programId: String
        let method: String
        let createdAt: Int64

        var wire: ExportedBind {
            ExportedBind(appAccountToken: token, affiliateId: affiliateId, programId: programId, method: method, createdAt: Timestamp.iso(createdAt))
        }
    }

    /// A commission as the ledger changes it.
    struct Commission: Decodable {
        let id: CommissionId
        let workspaceId: WorkspaceId
        let affiliateId: AffiliateId
        let programId: ProgramId
        let transactionId: TransactionId
        let currency: String
        let amount: Int64
        let clawedBack: Int64
        let status: Ledger.CommissionStatus
        let payableAt: Int64
        let test: Bool

        static let columns = "id, workspace_id, affiliate_id, program_id, transaction_id, currency, amount, clawed_back, status, payable_at, test"
    }

    /// A commission's state, as a writer that lost a race reads it again.
    struct CommissionState: Decodable {
        let status: Ledger.CommissionStatus
        let clawedBack: Int64
    }

    /// A posting with its commission's commitment, when it accrued one.
    struct Posting: Decodable {
        let id: String
        let kind: String
        let affiliateId: String
        let programId: String?
        let currency: String
        let test: Bool
        let notificationUuid: String?
        let transactionId: String?
        let reference: String?
        let createdAt: Int64
        let billingPlanType: String?
        let billingPeriodNumber: Int?
        let totalBillingPeriods: Int?
        let committedAmount: Int64?
        let commitmentExpiresAt: Int64?

        var commitment: CommissionCommitment? {
            guard let totalBillingPeriods else { return nil }
            return CommissionCommitment(billingPlanType: billingPlanType, billingPeriodNumber: billingPeriodNumber,
                                        totalBillingPeriods: totalBillingPeriods, committedAmount: committedAmount,
                                        expiresAt: commitmentExpiresAt.map(Timestamp.iso))
        }

        func wire(entries: [LedgerEntry]) -> LedgerPosting {
            LedgerPosting(id: id, kind: kind, affiliateId: affiliateId, programId: programId, currency: currency, test: test,
                          notificationUUID: notificationUuid, transactionId: transactionId, reference: reference,
                          createdAt: Timestamp.iso(createdAt), entries: entries, commitment: commitment)
        }
    }

    struct Entry: Decodable {
        let account: String
        let amount: Int64

        var wire: LedgerEntry { LedgerEntry(account: account, amount: amount) }
    }

    /// An account's total of one currency (and test or not) of an affiliate's postings.
    struct AccountTotal: Decodable {
        let currency: String
        let test: Bool
        let account: Ledger.Account
        let total: Int64
    }

    /// An account's total of one affiliate and currency, with the affiliate's names.
    struct PayoutTotal: Decodable {
        let affiliateId: String
        let name: String
        let externalId: String?
        let currency: String
        let account: Ledger.Account
        let total: Int64
    }

    /// How many live commissions an affiliate has in a currency.
    struct LiveCommissions: Decodable {
        let affiliateId: String
        let currency: String
        let n: Int
    }

    /// A notification as the API lists it.
    struct Notification: Decodable {
        let surfaceId: String
        let notificationUuid: String
        let notificationType: String
        let subtype: String?
        let status: String
        let reason: String?
        let receivedAt: Int64
        let environment: String?
        let transactionId: String?
        let appTransactionId: String?
        let transactionType: String?
        let transactionReason: String?
        let storefront: String?
        let offerType: Int64?
        let offerDiscountType: String?
        let offerPeriod: String?
        let inAppOwnershipType: String?
        let quantity: Int64?
        let revocationType: String?
        let revocationReason: String?
        let revocationPercentage: Int64?
        let billingPlanType: String?
        let previousOriginalTransactionId: String?
        let storeType: String?
        let tokenType: String?

        static let columns = """
            n.surface_id, n.notification_uuid, n.notification_type, n.subtype, n.status, n.reason, n.received_at, n.environment, n.transaction_id,
            n.app_transaction_id, n.transaction_type, n.transaction_reason, n.storefront, n.offer_type, n.offer_discount_type, n.offer_period,
            n.in_app_ownership_type, n.quantity, n.revocation_type, n.revocation_reason, n.revocation_percentage, n.billing_plan_type,
            n.previous_original_transaction_id, n.store_type, n.token_type
            """

        var wire: AppStoreNotificationRecord {
            AppStoreNotificationRecord(
                surfaceId: surfaceId, notificationUUID: notificationUuid, notificationType: notificationType, subtype: subtype, status: status,
                reason: reason, receivedAt: Timestamp.iso(receivedAt), environment: environment, transactionId: transactionId,
                appTransactionId: appTransactionId, transactionType: transactionType, transactionReason: transactionReason, storefront: storefront,
                offerType: offerType, offerDiscountType: offerDiscountType, offerPeriod: offerPeriod, inAppOwnershipType: inAppOwnershipType,
                quantity: quantity, revocationType: revocationType, revocationReason: revocationReason, revocationPercentage: revocationPercentage,
                billingPlanType: billingPlanType, previousOriginalTransactionId: previousOriginalTransactionId, storeType: storeType,
                tokenType: tokenType)
        }
    }

    struct Token: Decodable {
        let token: String
    }

    struct InstallOf: Decodable {
        let installId: InstallId?
    }

    struct StoreTypesOf: Decodable {
        let storeTypes: String?
    }

    struct Claimant: Decodable {
        let claimant: String
    }

    struct AppOf: Decodable {
        let appId: AppId
    }

    struct BoundToken: Decodable {
        let appAccountToken: BindToken
    }

    struct PreviousOriginal: Decodable {
        let previousOriginalTransactionId: TransactionId
    }

    /// The largest deferred window of an app's programs (NULL without programs).
    struct LongestWindow: Decodable {
        let m: Int64?
    }

    /// The first payment's date of a subscription's commissions (NULL without any).
    struct FirstPayment: Decodable {
        let first: Int64?
    }
}
