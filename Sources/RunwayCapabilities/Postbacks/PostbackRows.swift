import AppleFormats
import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore

/// The postbacks capability's rows as it reads them (`RowDecoder`: each property names its column), and the wire forms
/// made from them.
enum PostbackRows {
    /// A received postback as the API lists it (without its body).
    struct Stored: Decodable {
        let id: String
        let receivedAt: Int64
        let framework: String
        let appId: String?
        let status: String
        let reason: String?
        let detail: String?
        let version: String?
        let kid: String?
        let environment: String
        let adNetworkId: String?
        let campaignId: String?
        let sourceIdentifier: String?
        let campaign: String?
        let appStoreId: String?
        let transactionId: String?
        let sequenceIndex: Int
        let didWin: Bool?
        let redownload: Bool?
        let conversionType: String?
        let fidelityType: Int?
        let sourceAppId: String?
        let sourceDomain: String?
        let fineValue: Int?
        let coarseValue: String?
        let countryCode: String?
        let interactionType: String?
        let tier: String?
        let schemaVersion: Int?
        /// JSON of `[DecodedConversion]`; text that does not read as that is shown as no decoding.
        let decoded: String?
        let marketplace: String?

        static let columns = """
            id, received_at, framework, app_id, status, reason, detail, version, kid, environment, ad_network_id, campaign_id,
            source_identifier, campaign, app_store_id, transaction_id, sequence_index, did_win, redownload, conversion_type,
            fidelity_type, source_app_id, source_domain, fine_value, coarse_value, country_code, interaction_type, tier,
            schema_version, decoded, marketplace
            """

        var wire: StoredPostback {
            StoredPostback(
                id: id, framework: framework, status: status, reason: reason, detail: detail, receivedAt: Timestamp.iso(receivedAt),
                appId: appId, version: version, kid: kid, environment: environment, adNetworkId: adNetworkId, campaignId: campaignId,
                sourceIdentifier: sourceIdentifier, campaign: campaign, appStoreId: appStoreId, transactionId: transactionId,
                window: sequenceIndex + 1, didWin: didWin, redownload: redownload, conversionType: conversionType,
                fidelityType: fidelityType, sourceAppId: sourceAppId, sourceDomain: sourceDomain, fineValue: fineValue,
                coarseValue: coarseValue, countryCode: countryCode, interactionType: interactionType, tier: tier,
                schemaVersion: schemaVersion,
                decoded: decoded.flatMap { try? StrictJSONDecoder().decode([DecodedConversion].self, from: Array($0.utf8)) },
                marketplace: marketplace, adNetworkName: AppleAdsPostbacks.networkName(adNetworkId),
                placement: AppleAdsPostbacks.placement(adNetworkId: adNetworkId, identifier: campaignId ?? sourceIdentifier)?.rawValue)
        }
    }

    /// A verified (or duplicate) postback of an App Store id, as a proof of that id moves it to its app.
    struct Unrouted: Decodable {
        let id: String
        let status: String
        let body: [UInt8]
        let receivedAt: Int64
        let fineValue: Int?
        let coarseValue: String?
        let sequenceIndex: Int
        let adNetworkId: String?
        let sourceIdentifier: String?
        let campaignId: String?

        static let columns = "id, status, body, received_at, fine_value, coarse_value, sequence_index, ad_network_id, source_identifier, campaign_id"
    }

    /// A forward due, with what sending it takes.
    struct Forward: Decodable {
        let id: String
        let postbackId: String
        let url: String
        let body: [UInt8]
        let attempts: Int64
    }

    /// One group of the report's postbacks: the grouping key (its SQL type depends on the grouping) and what is counted.
    struct ReportGroup: Decodable {
        let k: SQLValue
        let status: String
        let didWin: Bool?
        let sequenceIndex: Int
        let conversionType: String?
        let redownload: Bool?
        let hasFine: Bool
        let hasCoarse: Bool
        let n: Int
    }

    /// Invalid postbacks past a day's sample, counted by day or framework.
    struct RejectionCount: Decodable {
        let k: SQLValue
        let n: Int
    }

    /// A group's verified postbacks that lack each field withheld at lower tiers (`missing`, NULL when none has the
    /// column), out of those whose format has it (`of`).
    struct MissingFieldSums: Decodable {
        let k: SQLValue
        let lacksCountryMissing: Int64?
        let lacksCountryOf: Int64
        let lacksMarketplaceMissing: Int64?
        let lacksMarketplaceOf: Int64
        let lacksSourceDigitsMissing: Int64?
        let lacksSourceDigitsOf: Int64
        let lacksPublisherMissing: Int64?
        let lacksPublisherOf: Int64

        var country: (missing: Int64?, of: Int64) { (lacksCountryMissing, lacksCountryOf) }
        var marketplace: (missing: Int64?, of: Int64) { (lacksMarketplaceMissing, lacksMarketplaceOf) }
        var sourceDigits: (missing: Int64?, of: Int64) { (lacksSourceDigitsMissing, lacksSourceDigitsOf) }
        var publisher: (missing: Int64?, of: Int64) { (lacksPublisherMissing, lacksPublisherOf) }
    }

    /// A stored conversion schema version.
    struct Schema: Decodable {
        let version: Int
        /// JSON of `ConversionSchemaRequest`.
        let document: String
        let createdAt: Int64

        static let columns = "version, document, created_at"

        func wire(appId: String) throws -> ConversionSchema {
            guard let request = try? StrictJSONDecoder().decode(ConversionSchemaRequest.self, from: Array(document.utf8)) else {
                throw StoreError.corrupt("a stored conversion schema is unreadable")
            }
            return ConversionSchema(appId: appId, version: version, rules: request.rules, laterWindows: request.laterWindows ?? [],
                                    createdAt: Timestamp.iso(createdAt))
        }
    }

    /// An ad network, without its sealed private key.
    struct AdNetworkRow: Decodable {
        let id: String
        let workspaceId: String
        let adNetworkId: String
        let publicKey: String
        let createdAt: Int64

        static let columns = "id, workspace_id, ad_network_id, public_key, created_at"

        var wire: AdNetwork {
            AdNetwork(id: id, workspaceId: workspaceId, adNetworkId: adNetworkId, publicKey: publicKey, createdAt: Timestamp.iso(createdAt))
        }
    }

    /// A sealed private key.
    struct SealedKey: Decodable {
        let privateKey: String
    }

    /// A placement.
    struct PlacementRow: Decodable {
        let id: String
        let workspaceId: String
        let networkId: String
        let adNetworkId: String
        let appId: String
        let name: String?
        let advertisedItemId: Int64
        let sourceIdentifier: Int
        let publisherItemId: Int64
        let eligibleForReengagement: Bool
        let reengagementUrl: String?
        let createdAt: Int64

        static let columns = """
            id, workspace_id, network_id, ad_network_id, app_id, name, advertised_item_id, source_identifier, publisher_item_id,
            eligible_for_reengagement, reengagement_url, created_at
            """

        var wire: AdPlacement {
            AdPlacement(id: id, workspaceId: workspaceId, networkId: networkId, adNetworkId: adNetworkId, appId: appId, name: name,
                        advertisedItemId: advertisedItemId, sourceIdentifier: sourceIdentifier, publisherItemId: publisherItemId,
                        eligibleForReengagement: eligibleForReengagement, reengagementUrl: reengagementUrl, createdAt: Timestamp.iso(createdAt))
        }
    }

    struct NewestVersion: Decodable {
        let v: Int64?
    }

    struct DedupKey: Decodable {
        let dedupKey: String
    }

    struct Document: Decodable {
        let document: String
    }

    struct AdNetworkIdRow: Decodable {
        let adNetworkId: String
    }
}
