// StoreKit 2's AppTransaction: iOS and tvOS 16 and later (appTransactionID is back-deployed to them).
#if (os(iOS) || os(tvOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(StoreKit)
import StoreKit

/// The verified app transaction's id and Apple's signed copy of it; nil before iOS 16 or when StoreKit cannot verify it.
struct SystemAppTransaction: AppTransactionProvider {
    func appTransactionID() async -> String? {
        guard #available(iOS 16.0, tvOS 16.0, *) else { return nil }
        guard case .verified(let transaction)? = try? await AppTransaction.shared else { return nil }
        return transaction.appTransactionID
    }

    /// https://developer.apple.com/documentation/storekit/apptransaction/all (iOS, macOS and tvOS 27): the verified ones.
    func signedAppTransactions() async -> [String] {
        guard #available(iOS 27.0, macOS 27.0, tvOS 27.0, *) else { return [] }
        var signed: [String] = []
        for await result in AppTransaction.all {
            if case .verified = result { signed.append(result.jwsRepresentation) }
            if signed.count == 8 { break }
        }
        return signed
    }

    func signedAppTransaction() async -> String? {
        guard #available(iOS 16.0, tvOS 16.0, *) else { return nil }
        guard let result = try? await AppTransaction.shared, case .verified = result else { return nil }
        return result.jwsRepresentation
    }
}
#endif
