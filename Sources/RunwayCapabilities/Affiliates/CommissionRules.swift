import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// An amount of money in its currency's minor units (ISO 4217: cents, yen, fils).
struct Money: Equatable {
    let minorUnits: Int64
    let currency: String
}

/// What a payment earns under a program's rule.
enum CommissionRules {
    static func validate(_ rule: CommissionRule) throws -> CommissionRule {
        switch rule.kind {
        case "percent":
            guard let points = rule.basisPoints, (1...10_000).contains(points) else {
                throw RequestError.invalidField("commission.basisPoints", "must be 1 to 10000 (0.01% to 100%)")
            }
            guard rule.amount == nil, rule.currency == nil else {
                throw RequestError.invalidField("commission.amount", "a percent commission has no fixed amount or currency")
            }
        case "fixed":
            guard let amount = rule.amount, amount > 0, amount <= 100_000_000 else {
                throw RequestError.invalidField("commission.amount", "must be a positive amount in minor units")
            }
            guard let currency = rule.currency, currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw RequestError.invalidField("commission.currency", "must be an ISO 4217 code such as USD")
            }
            guard rule.basisPoints == nil else { throw RequestError.invalidField("commission.basisPoints", "a fixed commission has no percentage") }
        default:
            throw RequestError.invalidField("commission.kind", "must be percent or fixed")
        }
        switch rule.duration {
        case "first", "lifetime":
            guard rule.months == nil else { throw RequestError.invalidField("commission.months", "only a months duration has months") }
        case "months":
            guard let months = rule.months, (1...120).contains(months) else { throw RequestError.invalidField("commission.months", "must be 1 to 120") }
        default:
            throw RequestError.invalidField("commission.duration", "must be first, months or lifetime")
        }
        return rule
    }

    /// The commission on a payment of `price` milliunits of `currency`: the percentage of its minor units rounded
    /// down (never more than earned), or the fixed amount in the rule's currency.
    static func amount(_ rule: CommissionRule, price: Milliunits, currency: String) -> Money {
        if rule.kind == "fixed", let amount = rule.amount, let fixed = rule.currency { return Money(minorUnits: amount, currency: fixed) }
        let minor = Currency.minorUnits(milliunits: price, currency: currency)
        let points = Int64(rule.basisPoints ?? 0)
        let (product, overflow) = minor.multipliedReportingOverflow(by: points)
        return Money(minorUnits: overflow ? minor / 10_000 * points : product / 10_000, currency: currency)
    }

    /// What a whole commitment (a monthly plan with a 12-month commitment) earns, shown beside each monthly payment's
    /// commission: a percentage of the commitment's price, or a fixed commission once per payment. It assumes every
    /// payment earns, which a first-payment or months rule may cut short. Nil when Apple gave neither the price nor the
    /// number of payments.
    static func committedAmount(_ rule: CommissionRule, commitment: AppStoreTransaction.Commitment, currency: String) -> Int64? {
        if rule.kind == "fixed" {
            guard let amount = rule.amount, let periods = commitment.totalBillingPeriods else { return nil }
            return amount * Int64(periods)
        }
        guard let price = commitment.commitmentPrice else { return nil }
        return amount(rule, price: price, currency: currency).minorUnits
    }

    /// Whether a payment made at `purchaseDate` still earns: the first payment only, payments within the rule's months
    /// of the first paid one, or every payment.
    static func earns(_ rule: CommissionRule, _ db: any SQLExecutor, programId: ProgramId, originalTransactionId: TransactionId, purchaseDate: Int64) throws -> Bool {
        switch rule.duration {
        case "lifetime":
            return true
        case "first":
            return try !LedgerQueries.hasSubscriptionCommission(db, programId: programId, originalTransactionId: originalTransactionId)
        default:
            guard let first = try LedgerQueries.firstPaymentDate(db, programId: programId, originalTransactionId: originalTransactionId) else { return true }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            let start = Date(timeIntervalSince1970: Double(first) / 1000)
            guard let end = calendar.date(byAdding: .month, value: rule.months ?? 0, to: start) else { return false }
            return Double(purchaseDate) / 1000 < end.timeIntervalSince1970
        }
    }

    static func encode(_ rule: CommissionRule) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(rule), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> CommissionRule {
        guard let rule = try? JSONDecoder().decode(CommissionRule.self, from: Data(text.utf8)) else {
            throw StoreError.corrupt("a stored commission rule is unreadable")
        }
        return rule
    }
}
