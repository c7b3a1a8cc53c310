import Foundation
import RunwayJSON

/// The fields of an App Store Server Notification v2 payload that attribution needs.
public struct AppStoreNotification: Sendable, Equatable {
    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    /// Milliseconds since 1970.
    public var signedDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?

    /// Nil when the payload lacks a type or a UUID.
    public init?(_ payload: JSONValue) {
        guard let type = payload["notificationType"]?.stringValue, let uuid = payload["notificationUUID"]?.stringValue else { return nil }
        notificationType = type
        subtype = payload["subtype"]?.stringValue
        notificationUUID = uuid
        signedDate = AppStoreDates.milliseconds(payload["signedDate"])
        let data = payload["data"]
        appAppleId = data?["appAppleId"].flatMap { AppStoreDates.milliseconds($0) }
        bundleId = data?["bundleId"]?.stringValue
        environment = data?["environment"]?.stringValue
        signedTransactionInfo = data?["signedTransactionInfo"]?.stringValue
        signedRenewalInfo = data?["signedRenewalInfo"]?.stringValue
    }
}

/// The fields of a signed transaction (`JWSTransactionDecodedPayload`) that commissions need.
public struct AppStoreTransaction: Sendable, Equatable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var bundleId: String?
    public var productId: String?
    /// Milliseconds since 1970.
    public var purchaseDate: Int64?
    public var expiresDate: Int64?
    public var type: String?
    /// The UUID the app set on the purchase, lower-cased.
    public var appAccountToken: String?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT`.
    public var offerDiscountType: String?
    /// The price in milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var environment: String?
    public var revocationDate: Int64?
    public var transactionReason: String?

    public init?(_ payload: JSONValue) {
        guard payload.objectValue != nil else { return nil }
        transactionId = payload["transactionId"].flatMap(AppStoreDates.text)
        originalTransactionId = payload["originalTransactionId"].flatMap(AppStoreDates.text) ?? transactionId
        bundleId = payload["bundleId"]?.stringValue
        productId = payload["productId"]?.stringValue
        purchaseDate = AppStoreDates.milliseconds(payload["purchaseDate"])
        expiresDate = AppStoreDates.milliseconds(payload["expiresDate"])
        type = payload["type"]?.stringValue
        appAccountToken = payload["appAccountToken"]?.stringValue?.lowercased()
        offerType = AppStoreDates.milliseconds(payload["offerType"]).map(Int.init)
        offerDiscountType = payload["offerDiscountType"]?.stringValue
        price = AppStoreDates.milliseconds(payload["price"])
        currency = payload["currency"]?.stringValue
        environment = payload["environment"]?.stringValue
        revocationDate = AppStoreDates.milliseconds(payload["revocationDate"])
        transactionReason = payload["transactionReason"]?.stringValue
    }

    /// A free trial: an introductory offer given free, or a price of zero.
    public var isFreeTrial: Bool { offerDiscountType == "FREE_TRIAL" || price == 0 }
}

enum AppStoreDates {
    /// A JSON number as whole units (StoreKit Testing writes fractional milliseconds; they are truncated).
    static func milliseconds(_ value: JSONValue?) -> Int64? {
        guard case .number(let text)? = value else { return nil }
        if let whole = Int64(text) { return whole }
        guard let double = Double(text), double.isFinite, abs(double) < 9e18 else { return nil }
        return Int64(double.rounded(.towardZero))
    }

    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .number(let n): return n
        default: return nil
        }
    }
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
    public static func minorUnits(milliunits: Int64, currency: String) -> Int64 {
        let exponent = exponent(currency)
        if exponent >= 3 { return milliunits * Int64(pow(10, Double(exponent - 3))) }
        let divisor = Int64(pow(10, Double(3 - exponent)))
        let (quotient, remainder) = milliunits.quotientAndRemainder(dividingBy: divisor)
        let twice = 2 * abs(remainder)
        if twice < divisor || (twice == divisor && quotient % 2 == 0) { return quotient }
        return quotient + (milliunits < 0 ? -1 : 1)
    }
}
