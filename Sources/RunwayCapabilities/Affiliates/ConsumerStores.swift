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
            try db.first("""
                SELECT install_id FROM app_transaction_owners WHERE app_id = \(appId) AND environment = \(environment.rawValue)
                AND app_transaction_id = \(id)
                """, as: AffiliateRows.InstallOf.self)?.installId
        }
        let bound = try db.first("SELECT install_id FROM app_account_tokens WHERE token = \(token) AND app_id = \(appId)", as: AffiliateRows.InstallOf.self)?
            .installId
        guard let installId = owner ?? bound else { return false }
        let stored = try db.first("SELECT store_types FROM installs WHERE app_id = \(appId) AND install_id = \(installId)", as: AffiliateRows.StoreTypesOf.self)?
            .storeTypes
        return StoreTypes.onlyNonConsumer(stored)
    }
}
