// A stand-in for Apple's StoreKit, for type-checking only: exactly the symbols LinkRunway's adapters use (and the types
// they need), with the labels, types, `async`/`throws`, optionality and availability of Apple's documentation page
// named above each. Where Apple offers a completion handler and an asynchronous form, only the form used is here.
// Bodies never run.
import Foundation

/// https://developer.apple.com/documentation/storekit/skadnetwork
@available(iOS 11.3, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
open class SKAdNetwork: NSObject {
    /// https://developer.apple.com/documentation/storekit/skadnetwork/coarseconversionvalue
    @available(iOS 16.1, *)
    public struct CoarseConversionValue: Equatable, Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        /// https://developer.apple.com/documentation/storekit/skadnetwork/coarseconversionvalue/init(rawvalue:)
        public init(rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/storekit/skadnetwork/coarseconversionvalue/low
        public static let low = CoarseConversionValue(rawValue: "low")
        /// https://developer.apple.com/documentation/storekit/skadnetwork/coarseconversionvalue/medium
        public static let medium = CoarseConversionValue(rawValue: "medium")
        /// https://developer.apple.com/documentation/storekit/skadnetwork/coarseconversionvalue/high
        public static let high = CoarseConversionValue(rawValue: "high")
    }

    /// https://developer.apple.com/documentation/storekit/skadnetwork/updateconversionvalue(_:)
    @available(iOS, introduced: 14.0, deprecated: 15.4, message: "Use updatePostbackConversionValue:completionHandler: instead")
    open class func updateConversionValue(_ conversionValue: Int) {}

    /// The asynchronous form on https://developer.apple.com/documentation/storekit/skadnetwork/updatepostbackconversionvalue(_:completionhandler:)
    @available(iOS 15.4, *)
    open class func updatePostbackConversionValue(_ conversionValue: Int) async throws {}

    /// The asynchronous form on
    /// https://developer.apple.com/documentation/storekit/skadnetwork/updatepostbackconversionvalue(_:coarsevalue:lockwindow:completionhandler:)
    @available(iOS 16.1, *)
    open class func updatePostbackConversionValue(_ fineValue: Int, coarseValue: SKAdNetwork.CoarseConversionValue, lockWindow: Bool) async throws {}
}

/// https://developer.apple.com/documentation/storekit/verificationresult
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@frozen public enum VerificationResult<SignedType> {
    /// https://developer.apple.com/documentation/storekit/verificationresult/unverified(_:_:)
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    /// https://developer.apple.com/documentation/storekit/verificationresult/verified(_:)
    case verified(SignedType)

    /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    public enum VerificationError: Error, Equatable, Hashable, LocalizedError, Sendable {
        /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror/invalidcertificatechain
        case invalidCertificateChain
        /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror/invaliddeviceverification
        case invalidDeviceVerification
        /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror/invalidencoding
        case invalidEncoding
        /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror/invalidsignature
        case invalidSignature
        /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror/missingrequiredproperties
        case missingRequiredProperties
        /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror/revokedcertificate
        case revokedCertificate
    }
}

/// https://developer.apple.com/documentation/storekit/apptransaction
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
public struct AppTransaction: Sendable {
    /// https://developer.apple.com/documentation/storekit/apptransaction/shared
    public static var shared: VerificationResult<AppTransaction> {
        get async throws { throw VerificationResult<AppTransaction>.VerificationError.missingRequiredProperties }
    }

    /// https://developer.apple.com/documentation/storekit/apptransaction/apptransactionid (back-deployed before iOS
    /// 18.4, macOS 15.4, tvOS 18.4, watchOS 11.4, visionOS 2.4, so available wherever AppTransaction is).
    public var appTransactionID: String { "" }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension VerificationResult where SignedType == AppTransaction {
    /// https://developer.apple.com/documentation/storekit/verificationresult/jwsrepresentation-6ma59
    public var jwsRepresentation: String { "" }
}

@available(iOS 27.0, macOS 27.0, tvOS 27.0, watchOS 27.0, visionOS 27.0, *)
extension AppTransaction {
    /// https://developer.apple.com/documentation/storekit/apptransaction/all
    public static var all: AppTransaction.AppTransactions { AppTransactions() }

    /// https://developer.apple.com/documentation/storekit/apptransaction/apptransactions
    public struct AppTransactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<AppTransaction>

        /// https://developer.apple.com/documentation/storekit/apptransaction/apptransactions/asynciterator
        public struct AsyncIterator: AsyncIteratorProtocol {
            /// https://developer.apple.com/documentation/storekit/apptransaction/apptransactions/asynciterator/next()
            public mutating func next() async -> VerificationResult<AppTransaction>? { nil }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }
}
