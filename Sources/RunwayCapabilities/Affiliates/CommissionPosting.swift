import AppleFormats
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// What a payment, refund or reversal of an App Store purchase does to its affiliate's commissions: the binding is found
/// (by the appAccountToken minted at bind, or else by the oldest bind of the install that proved the purchase's app
/// transaction id, or the subscription's earlier commissions), then a payment accrues, a refund or revocation claws
/// back and a reversed refund accrues again. Runs in the notification's transaction; the outcome becomes its status in
/// one place (`Outcome.apply`).
enum CommissionPosting {
    /// A notification's purchase, as verified.
    struct Purchase {
        let type: AppStoreNotificationType
        let transaction: AppStoreTransaction
        let transactionId: TransactionId
        let surface: NotificationHandlers.Surface
        let notificationUUID: String
        let now: Int64

        /// The subscription's first transaction (the transaction itself for a one-time purchase).
        var originalTransactionId: TransactionId { transaction.originalTransactionId ?? transactionId }
    }

    /// The bind a purchase belongs to, with its program's terms.
    typealias Binding = AffiliateRows.Binding

    /// What posting did.
    enum Outcome: Equatable {
        /// A seat an organization or group purchaser assigned, or taken back: its purchaser's commission counted it.
        case seat
        /// No bind holds the purchase.
        case unattributed
        /// A payment from an education or enterprise store's install, under a program for consumer stores only.
        case nonConsumerStore
        /// A free trial earns nothing.
        case trial
        /// The transaction's commission exists: this payment was posted before.
        case duplicate
        /// A payment the rule pays nothing for (a renewal past its duration, a free or unpriced purchase).
        case nothingDue
        /// A payment's commission accrued.
        case accrued(Money, commitment: CommissionCommitment?)
        /// A refund clawed back (a negative amount), a reversed refund accrued again, or neither found anything.
        case reposted(Money?)

        /// The notification's answer for this outcome.
        func apply(to result: inout AppStoreNotificationResult) {
            switch self {
            case .seat: result.status = .ignored
            case .unattributed: result.status = .unattributed
            case .nonConsumerStore: (result.status, result.reason) = (.ignored, NotificationHandlers.nonConsumerStore)
            case .trial: result.status = .trial
            case .duplicate: result.status = .duplicate
            case .nothingDue: (result.status, result.amount) = (.ok, 0)
            case .accrued(let money, let commitment):
                (result.status, result.amount, result.currency, result.commitment) = (.ok, money.minorUnits, money.currency, commitment)
            case .reposted(let money):
                (result.status, result.amount, result.currency) = (.ok, money?.minorUnits, money?.currency)
            }
        }
    }

    /// Posts what `purchase` means for the affiliate it is bound to.
    static func post(_ db: any SQLExecutor, _ purchase: Purchase) throws -> Outcome {
        let transaction = purchase.transaction, appId = purchase.surface.appId
        // A seat an organization or group purchaser assigned earns nothing, and taking it back is no refund: the
        // purchaser's commission counted the seats (multiseat, App Store Server API 1.22).
        if transaction.isAssignedSeat || transaction.revocationType == "ASSIGNMENT_REVOKE" { return .seat }
        let found = try transaction.appAccountToken.flatMap { token in try AffiliateQueries.tokenBinding(db, token: BindToken(token), appId: appId) }
            ?? transaction.appTransactionId.flatMap { id in
                try AppTransactionOwnership.binding(db, appTransactionId: id, appId: appId, environment: purchase.surface.environment)
            }
            ?? AffiliateQueries.subscriptionBinding(db, original: purchase.originalTransactionId, previous: transaction.previousOriginalTransactionId,
                                                    appId: appId)
        guard let binding = found else { return .unattributed }
        // Every notification of one purchase carries its token: writers on other connections or servers wait here for
        // each other, so what they decide from the commissions already stored (the first payment, a duration's start)
        // is decided in turn. One commission per transaction is the unique index's.
        try AffiliateQueries.lockToken(db, token: binding.token, appId: appId)
        if AppStoreNotificationType.payments.contains(purchase.type) {
            if binding.consumerStoresOnly,
               try ConsumerStores.nonConsumerPurchase(db, token: binding.token, transaction: transaction, appId: appId,
                                                      environment: purchase.surface.environment) {
                return .nonConsumerStore
            }
            return try accrue(db, Payment(purchase: purchase, binding: binding))
        }
        if AppStoreNotificationType.reversals.contains(purchase.type) {
            let clawed = try Ledger.clawBack(db, programId: binding.programId, transactionId: purchase.transactionId, share: transaction.revokedShare,
                                             notificationUUID: purchase.notificationUUID, now: purchase.now)
            return .reposted(clawed.first.map { currency, amount in Money(minorUnits: -amount, currency: currency) })
        }
        let reaccrued = try Ledger.reaccrue(db, programId: binding.programId, transactionId: purchase.transactionId, holdDays: binding.holdDays,
                                            notificationUUID: purchase.notificationUUID, now: purchase.now)
        return .reposted(reaccrued.map { currency, amount in Money(minorUnits: amount, currency: currency) })
    }

    /// A payment of a bound purchase.
    struct Payment {
        let purchase: Purchase
        let binding: Binding
    }

    /// Accrues the payment's commission under its program's rule: once per transaction, for each seat bought.
    static func accrue(_ db: any SQLExecutor, _ payment: Payment) throws -> Outcome {
        let purchase = payment.purchase, binding = payment.binding, transaction = purchase.transaction
        if transaction.isFreeTrial { return .trial }
        // One commission per transaction, however many notifications mention it.
        if try AffiliateQueries.hasCommission(db, programId: binding.programId, transactionId: purchase.transactionId) { return .duplicate }
        let purchaseDate = transaction.purchaseDate ?? purchase.now
        let rule = try CommissionRules.decode(binding.commission)
        guard try CommissionRules.earns(rule, db, programId: binding.programId, originalTransactionId: purchase.originalTransactionId,
                                        purchaseDate: purchaseDate),
              let price = transaction.price, let currency = transaction.currency, price > 0 else {
            return .nothingDue
        }
        // Apple's price is of one product or seat; a multiseat purchase earns for each seat it bought.
        let perSeat = CommissionRules.amount(rule, price: price, currency: currency)
        let (product, overflow) = perSeat.minorUnits.multipliedReportingOverflow(by: transaction.seats)
        let amount = overflow ? WireLimits.money : min(product, WireLimits.money)
        let committed = transaction.commitment.flatMap { CommissionRules.committedAmount(rule, commitment: $0, currency: currency) }
        let commission = Ledger.Commission(
            workspaceId: purchase.surface.workspaceId, affiliateId: binding.affiliateId, programId: binding.programId, token: binding.token,
            transactionId: purchase.transactionId, originalTransactionId: purchase.originalTransactionId, purchaseDate: purchaseDate,
            currency: perSeat.currency, amount: amount, holdDays: binding.holdDays, test: purchase.surface.test,
            appTransactionId: transaction.appTransactionId, billingPlanType: transaction.billingPlanType, commitment: transaction.commitment,
            committedAmount: committed)
        // The unique index decides between two writers the token lock did not order (an earlier release's server).
        guard try Ledger.accrue(db, commission, notificationUUID: purchase.notificationUUID, now: purchase.now) else { return .duplicate }
        let commitment = transaction.commitment.map { commitment in
            CommissionCommitment(billingPlanType: transaction.billingPlanType, billingPeriodNumber: commitment.billingPeriodNumber,
                                 totalBillingPeriods: commitment.totalBillingPeriods, committedAmount: committed,
                                 expiresAt: commitment.commitmentExpiresDate.map(Timestamp.iso))
        }
        return .accrued(Money(minorUnits: amount, currency: perSeat.currency), commitment: commitment)
    }
}
