import AppleFormats
import RunwayKit
import RunwayStore

/// Programs that pay for consumer App Store purchases only: whether a purchase's install is known to come from an
/// education or enterprise store. The install is the one that proved the purchase's app transaction (its store types
/// came with that proof), else the install the purchase's appAccountToken was bound for; a purchase with neither, or
/// whose install named no store, or any other store beside education and enterprise, is not known to be one.
enum ConsumerStores {
    static func nonConsumerPurchase(_ db: any SQLExecutor, token: BindToken, transaction: AppStoreTransaction, appId: AppId,
                                    environment: AppStoreVerifier.Environment) throws -> Bool {
        let owner = try transaction.appTransactionId.flatMap { id in
            try AppTransactionQueries.owner(db, appId: appId, environment: environment.rawValue, appTransactionId: id.rawValue)
        }
        let bound = try AppTransactionQueries.boundInstall(db, token: token, appId: appId)
        guard let installId = owner ?? bound else { return false }
        let stored = try AppTransactionQueries.storeTypes(db, appId: appId, installId: installId)
        return StoreTypes.onlyNonConsumer(stored)
    }
}
