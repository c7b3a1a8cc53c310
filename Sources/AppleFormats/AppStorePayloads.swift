import Foundation
import RunwayJSON

/// The fields of an App Store Server Notification v2 payload that attribution needs
/// (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload). Apple adds
/// notification types and fields over time; whatever is not read here is kept out of the way, never an error.
public struct AppStoreNotification: Sendable, Equatable {
    public var notificationType: AppStoreNotificationType
    public var subtype: String?
    public var notificationUUID: String
    /// Milliseconds since 1970.
    public var signedDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
    /// The signed app transaction of `RESCIND_CONSENT`, which carries `appData` instead of `data`
    /// (https://developer.apple.com/documentation/appstoreservernotifications/appdata).
    public var signedAppTransactionInfo: String?
    /// The type of an external purchase custom link token (`EXTERNAL_PURCHASE_TOKEN`, notifications 2.17), as sent:
    /// https://developer.apple.com/documentation/appstoreservernotifications/tokentype
    public var tokenType: String?

    /// Nil when the payload lacks a type or a UUID. The app's identifiers come from whichever object the type carries:
    /// `data` (purchases), `appData` (`RESCIND_CONSENT`), `summary` (`RENEWAL_EXTENSION` with `SUMMARY`) or
    /// `externalPurchaseToken` (`EXTERNAL_PURCHASE_TOKEN`); a type with none of them has no identifiers.
    public init?(_ payload: JSONValue) {
        guard let type = payload["notificationType"]?.stringValue, let uuid = payload["notificationUUID"]?.stringValue else { return nil }
        notificationType = AppStoreNotificationType(rawValue: type)
        notificationUUID = uuid
        signedDate = AppStoreValues.milliseconds(payload["signedDate"])
        let holderKey = ["data", "appData", "summary", "externalPurchaseToken"].first { payload[$0]?.objectValue != nil }
        let holder = holderKey.flatMap { payload[$0] }
        appAppleId = holder?["appAppleId"].flatMap { AppStoreValues.wholeNumber($0) }
        bundleId = holder?["bundleId"]?.stringValue
        environment = holder?["environment"].flatMap(AppStoreValues.text)
        subtype = payload["subtype"].flatMap(AppStoreValues.text)
        if holderKey == "externalPurchaseToken", let token = holder {
            tokenType = token["tokenType"].flatMap(AppStoreValues.text)
            // An external purchase token names no environment: Apple's libraries take a sandbox one by its id's prefix.
            environment = environment ?? (token["externalPurchaseId"]?.stringValue?.hasPrefix("SANDBOX") == true ? "Sandbox" : "Production")
        }
        let data = payload["data"]
        signedTransactionInfo = data?["signedTransactionInfo"]?.stringValue
        signedRenewalInfo = data?["signedRenewalInfo"]?.stringValue
        signedAppTransactionInfo = payload["appData"]?["signedAppTransactionInfo"]?.stringValue
    }

    /// Whether the payload names any app at all (a type Apple adds may carry none of the objects above).
    public var namesAnApp: Bool { bundleId != nil || appAppleId != nil }
}

/// The fields of a signed transaction (`JWSTransactionDecodedPayload`,
/// https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload) that commissions need.
public struct AppStoreTransaction: Sendable, Equatable {
    public var transactionId: TransactionId?
    public var originalTransactionId: TransactionId?
    public var bundleId: String?
    public var productId: String?
    /// Milliseconds since 1970.
    public var purchaseDate: Int64?
    public var expiresDate: Int64?
    public var type: String?
    /// The UUID the app set on the purchase, lower-cased.
    public var appAccountToken: String?
    /// The app transaction this purchase belongs to, one per Apple Account and app (since 2025):
    /// https://developer.apple.com/documentation/appstoreserverapi/apptransactionid
    public var appTransactionId: AppTransactionId?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back; a number Apple adds is kept as sent.
    public var offerType: Int?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT` or `ONE_TIME` (a one-time discount on the first period):
    /// https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype
    public var offerDiscountType: String?
    /// How long the offer lasts, an ISO 8601 duration such as `P1M`:
    /// https://developer.apple.com/documentation/appstoreserverapi/offerperiod
    public var offerPeriod: String?
    /// The price in milliunits of `currency`.
    public var price: Milliunits?
    public var currency: String?
    public var environment: String?
    public var revocationDate: Int64?
    /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`:
    /// https://developer.apple.com/documentation/appstoreserverapi/revocationtype
    public var revocationType: String?
    /// The share of the transaction refunded or revoked, in thousandths of a percent (50000 is 50%):
    /// https://developer.apple.com/documentation/appstoreserverapi/revocationpercentage
    public var revocationPercentage: Int64?
    /// Why Apple refunded or revoked it (`0` other, `1` an issue in the app), as sent:
    /// https://developer.apple.com/documentation/appstoreserverapi/revocationreason
    public var revocationReason: String?
    /// `PURCHASE` or `RENEWAL`, as sent: https://developer.apple.com/documentation/appstoreserverapi/transactionreason
    public var transactionReason: String?
    /// The three-letter code of the App Store storefront: https://developer.apple.com/documentation/appstoreserverapi/storefront
    public var storefront: String?
    /// How a subscription is billed, such as monthly payments for a 12-month commitment:
    /// https://developer.apple.com/documentation/appstoreservernotifications/billingplantype
    public var billingPlanType: String?
    /// The commitment of a plan billed in parts:
    /// https://developer.apple.com/documentation/appstoreservernotifications/transactioncommitmentinfo
    public var commitment: Commitment?
    /// How many products or seats the customer bought (a multiseat subscription's seats; API 1.22):
    /// https://developer.apple.com/documentation/appstoreserverapi/quantity
    public var quantity: Int64?
    /// `PURCHASED`, `FAMILY_SHARED`, or `ASSIGNED` (a seat an organization or group purchaser gave the customer; API
    /// 1.22), stored as sent whatever Apple adds:
    /// https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype
    public var inAppOwnershipType: String?
    /// The original transaction id of the subscription before it migrated (notifications 2.16, `MIGRATION`):
    /// https://developer.apple.com/documentation/appstoreservernotifications/previousoriginaltransactionid
    public var previousOriginalTransactionId: TransactionId?

    /// A monthly plan's commitment, as `commitmentInfo` gives it.
    public struct Commitment: Sendable, Equatable {
        /// Which payment of the commitment this transaction is (1 for the first).
        public var billingPeriodNumber: Int?
        /// How many payments the commitment has (12 for a 12-month commitment).
        public var totalBillingPeriods: Int?
        /// Milliseconds since 1970.
        public var commitmentExpiresDate: Int64?
        /// The commitment's whole price in milliunits of the transaction's currency.
        public var commitmentPrice: Milliunits?

        public init(billingPeriodNumber: Int? = nil, totalBillingPeriods: Int? = nil, commitmentExpiresDate: Int64? = nil, commitmentPrice: Milliunits? = nil) {
            self.billingPeriodNumber = billingPeriodNumber
            self.totalBillingPeriods = totalBillingPeriods
            self.commitmentExpiresDate = commitmentExpiresDate
            self.commitmentPrice = commitmentPrice
        }
    }

    public init?(_ payload: JSONValue) {
        guard payload.objectValue != nil else { return nil }
        transactionId = payload["transactionId"].flatMap(AppStoreValues.text).map(TransactionId.init)
        originalTransactionId = payload["originalTransactionId"].flatMap(AppStoreValues.text).map(TransactionId.init) ?? transactionId
        bundleId = payload["bundleId"]?.stringValue
        productId = payload["productId"]?.stringValue
        purchaseDate = AppStoreValues.milliseconds(payload["purchaseDate"])
        expiresDate = AppStoreValues.milliseconds(payload["expiresDate"])
        type = payload["type"].flatMap(AppStoreValues.text)
        appAccountToken = payload["appAccountToken"]?.stringValue?.lowercased()
        appTransactionId = payload["appTransactionId"].flatMap(AppStoreValues.text).map(AppTransactionId.init)
        offerType = AppStoreValues.wholeNumber(payload["offerType"]).flatMap { Int(exactly: $0) }
        offerDiscountType = payload["offerDiscountType"].flatMap(AppStoreValues.text)
        offerPeriod = payload["offerPeriod"]?.stringValue
        price = AppStoreValues.wholeNumber(payload["price"]).map(Milliunits.init(rawValue:))
        currency = payload["currency"]?.stringValue
        environment = payload["environment"]?.stringValue
        revocationDate = AppStoreValues.milliseconds(payload["revocationDate"])
        revocationType = payload["revocationType"].flatMap(AppStoreValues.text)
        revocationPercentage = AppStoreValues.wholeNumber(payload["revocationPercentage"])
        revocationReason = payload["revocationReason"].flatMap(AppStoreValues.text)
        transactionReason = payload["transactionReason"].flatMap(AppStoreValues.text)
        storefront = payload["storefront"].flatMap(AppStoreValues.text)
        billingPlanType = payload["billingPlanType"].flatMap(AppStoreValues.text)
        quantity = AppStoreValues.wholeNumber(payload["quantity"])
        inAppOwnershipType = payload["inAppOwnershipType"].flatMap(AppStoreValues.text)
        previousOriginalTransactionId = payload["previousOriginalTransactionId"].flatMap(AppStoreValues.text).map(TransactionId.init)
        if let info = payload["commitmentInfo"], info.objectValue != nil {
            commitment = Commitment(billingPeriodNumber: AppStoreValues.wholeNumber(info["billingPeriodNumber"]).flatMap { Int(exactly: $0) },
                                    totalBillingPeriods: AppStoreValues.wholeNumber(info["totalBillingPeriods"]).flatMap { Int(exactly: $0) },
                                    commitmentExpiresDate: AppStoreValues.milliseconds(info["commitmentExpiresDate"]),
                                    commitmentPrice: AppStoreValues.wholeNumber(info["commitmentPrice"]).map(Milliunits.init(rawValue:)))
        }
        guard outOfRange == nil else { return nil }
    }

    /// The most a price may be in milliunits: 10^15, a thousand times the API's money bound (10^12 minor units).
    public static let maxPrice: Int64 = 1_000_000_000_000_000
    /// The latest time a transaction may carry: the end of the year 9999, in milliseconds.
    public static let latestTime: Int64 = 253_402_300_799_999

    /// The first field outside what Apple's format allows (a negative or vast price, a time past the year 9999, a
    /// billing period count past a thousand), so no commission or date is computed from it; nil when all are within.
    public var outOfRange: String? {
        func within(_ value: Int64?, _ range: ClosedRange<Int64>) -> Bool { value.map(range.contains) ?? true }
        if !within(price?.rawValue, 0...Self.maxPrice) { return "price" }
        if !within(commitment?.commitmentPrice?.rawValue, 0...Self.maxPrice) { return "commitmentInfo.commitmentPrice" }
        for (name, time) in [("purchaseDate", purchaseDate), ("expiresDate", expiresDate), ("revocationDate", revocationDate),
                             ("commitmentInfo.commitmentExpiresDate", commitment?.commitmentExpiresDate)] where !within(time, 0...Self.latestTime) {
            return name
        }
        if !within(commitment?.billingPeriodNumber.map(Int64.init), 0...1000) { return "commitmentInfo.billingPeriodNumber" }
        if !within(commitment?.totalBillingPeriods.map(Int64.init), 0...1000) { return "commitmentInfo.totalBillingPeriods" }
        if !within(quantity, 0...Self.maxQuantity) { return "quantity" }
        return nil
    }

    /// The most products or seats one transaction may carry (Apple's field is an int32; a commission is multiplied by it).
    public static let maxQuantity: Int64 = 1_000_000

    /// A seat an organization or group purchaser assigned: the member paid nothing, so it earns nothing.
    public var isAssignedSeat: Bool { inAppOwnershipType == "ASSIGNED" }

    /// How many seats a commission counts: the quantity, at least one.
    public var seats: Int64 { max(quantity ?? 1, 1) }

    /// A free trial: an introductory offer given free, or a price of zero.
    public var isFreeTrial: Bool { offerDiscountType == "FREE_TRIAL" || price == 0 }

    /// The share of the transaction Apple took back, in thousandths of a percent: all of it (100000) unless the
    /// revocation says it was prorated.
    public var revokedShare: Int64 {
        guard revocationType == "REFUND_PRORATED", let share = revocationPercentage else { return 100_000 }
        return min(max(share, 0), 100_000)
    }
}

/// The fields of a signed app transaction (`JWSAppTransactionDecodedPayload`,
/// https://developer.apple.com/documentation/appstoreserverapi/jwsapptransactiondecodedpayload): the app's own record
/// of one Apple Account's first download, which `RESCIND_CONSENT` carries.
public struct AppStoreAppTransaction: Sendable, Equatable {
    public var appTransactionId: AppTransactionId?
    public var appAppleId: Int64?
    public var bundleId: String?
    /// The environment, under Apple's name for it here.
    public var receiptType: String?
    public var originalPlatform: String?
    /// The store the app was obtained from (`CONSUMER` is the only value Apple's server documentation lists; StoreKit's
    /// `AppTransaction.StoreType` adds education and enterprise).
    public var storeType: String?

    public init?(_ payload: JSONValue) {
        guard payload.objectValue != nil else { return nil }
        storeType = payload["storeType"].flatMap(AppStoreValues.text)
        appTransactionId = payload["appTransactionId"].flatMap(AppStoreValues.text).map(AppTransactionId.init)
        appAppleId = AppStoreValues.wholeNumber(payload["appAppleId"])
        bundleId = payload["bundleId"]?.stringValue
        receiptType = payload["receiptType"]?.stringValue
        originalPlatform = payload["originalPlatform"]?.stringValue
    }
}

/// The fields of signed renewal info (`JWSRenewalInfoDecodedPayload`,
/// https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload) the server keeps.
public struct AppStoreRenewalInfo: Sendable, Equatable {
    public var originalTransactionId: TransactionId?
    public var appTransactionId: AppTransactionId?
    public var appAccountToken: String?
    public var environment: String?

    public init?(_ payload: JSONValue) {
        guard payload.objectValue != nil else { return nil }
        originalTransactionId = payload["originalTransactionId"].flatMap(AppStoreValues.text).map(TransactionId.init)
        appTransactionId = payload["appTransactionId"].flatMap(AppStoreValues.text).map(AppTransactionId.init)
        appAccountToken = payload["appAccountToken"]?.stringValue?.lowercased()
        environment = payload["environment"]?.stringValue
    }
}

/// Values of Apple's signed payloads as the server keeps them.
enum AppStoreValues {
    /// A date: milliseconds since 1970 (StoreKit Testing writes fractional milliseconds; they are truncated).
    static func milliseconds(_ value: JSONValue?) -> Int64? { wholeNumber(value) }

    /// A number Apple documents as an integer (a price in milliunits, an app id, a count or an enumeration), as whole
    /// units; a fraction is truncated, and a number past what 64 bits hold is none.
    static func wholeNumber(_ value: JSONValue?) -> Int64? {
        guard case .number(let text)? = value else { return nil }
        if let whole = Int64(text) { return whole }
        guard let double = Double(text), double.isFinite, abs(double) < 9e18 else { return nil }
        return Int64(double.rounded(.towardZero))
    }

    /// An id, or a value Apple enumerates, as sent: a string, or a number's text (an enumeration Apple writes as
    /// numbers, or a value of another type than documented), so that a value added later is kept, never a failure.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .number(let n): return n
        default: return nil
        }
    }
}

/// An amount in thousandths of a currency's unit, as Apple gives prices (9990 is 9.99 USD); `Currency.minorUnits` makes
/// the minor units the ledger counts in. A type of its own, so a price is never taken for minor units or an id.
public struct Milliunits: RawRepresentable, Comparable, Hashable, Sendable, ExpressibleByIntegerLiteral {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(integerLiteral value: Int64) { rawValue = value }

    public static func < (lhs: Milliunits, rhs: Milliunits) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// ISO 4217 minor units, and exact conversion of App Store milliunit prices to them.
public enum Currency {
    /// Currencies whose minor unit is not the hundredth.
    static let exponents: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0,
        "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// Digits after the decimal point (2 unless ISO 4217 says otherwise).
    public static func exponent(_ code: String) -> Int { exponents[code] ?? 2 }

    /// An amount in minor units written for people in its currency's units: `4.99 USD`, `500 JPY`, `-1.250 KWD`.
    public static func text(minorUnits amount: Int64, currency: String) -> String {
        let exponent = exponent(currency)
        guard exponent > 0 else { return "\(amount) \(currency)" }
        let scale = Int64(pow(10, Double(exponent)))
        let digits = String(amount.magnitude % UInt64(scale))
        let fraction = String(repeating: "0", count: exponent - digits.count) + digits
        return "\(amount < 0 ? "-" : "")\(amount.magnitude / UInt64(scale)).\(fraction) \(currency)"
    }

    /// `milliunits` (thousandths of the unit) in minor units, rounded half to even when they do not divide exactly.
    public static func minorUnits(milliunits price: Milliunits, currency: String) -> Int64 {
        let milliunits = price.rawValue
        let exponent = exponent(currency)
        if exponent >= 3 {
            // Saturating: prices are bounded (`AppStoreTransaction.maxPrice`) long before this could overflow.
            let (product, overflow) = milliunits.multipliedReportingOverflow(by: Int64(pow(10, Double(exponent - 3))))
            return overflow ? (milliunits < 0 ? .min : .max) : product
        }
        let divisor = Int64(pow(10, Double(3 - exponent)))
        let (quotient, remainder) = milliunits.quotientAndRemainder(dividingBy: divisor)
        let twice = 2 * abs(remainder)
        if twice < divisor || (twice == divisor && quotient % 2 == 0) { return quotient }
        return quotient + (milliunits < 0 ? -1 : 1)
    }
}
