import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// Attribution's rows as it reads them (`RowDecoder`: each property names its column), besides `InstallRecord`, and
/// the wire forms made from them.
enum AttributionRows {
    /// A click a referrer names (its token, or the install's last open), with its link's app.
    struct ReferrerClick: Decodable {
        let token: String
        let kind: String
        let createdAt: Int64
        let workspaceId: String
        let linkId: String
        let appId: String?
    }

    /// An unmatched click from an address; `appId` (its link's) only where the query selects it.
    struct AddressClick {
        let token: String
        let createdAt: Int64
        let linkId: String
        let appId: String?
    }

    /// An ad impression from an address.
    struct Impression: Decodable {
        let id: String
        let network: String?
        let campaign: String?
        let createdAt: Int64
    }

    /// What a matched click passes on to its install's events.
    struct ClickVariant: Decodable {
        let variant: String?
        let qr: Bool
    }

    /// An event id claimed now.
    struct EventId: Decodable {
        let appId: String
        let eventId: String
    }

    struct SecretHash: Decodable {
        let secretHash: String
    }

    /// What an event added to its link's figures.
    struct RolledUpEvent: Decodable {
        let type: String
        let amount: Int64?
        let currency: String?
        let linkId: String?
        let receivedAt: Int64
        let variant: String?
        let qr: Bool
    }

    /// An event as a data export shows it.
    struct ExportedEvent: Decodable {
        let eventId: String
        let type: String
        let name: String?
        let userId: String?
        let occurredAt: Int64
        let receivedAt: Int64
        let amount: Int64?
        let currency: String?
        /// JSON of the event's properties; text that does not read as that is shown as none.
        let properties: String?
        let attested: Bool
        let method: String
        let source: String
        let linkId: String?
        let campaign: String?
        let channel: String?
        let feature: String?
        let appleAdsCampaignId: String?
        let appleAdsAdGroupId: String?
        let appleAdsKeywordId: String?
        let variant: String?
        let qr: Bool

        static let columns = """
            event_id, type, name, user_id, occurred_at, received_at, amount, currency, properties, attested, method, source, link_id,
            campaign, channel, feature, apple_ads_campaign_id, apple_ads_ad_group_id, apple_ads_keyword_id, variant, qr
            """

        var wire: StoredEvent {
            StoredEvent(eventId: eventId, type: type, name: name, userId: userId, occurredAt: Timestamp.iso(occurredAt),
                        receivedAt: Timestamp.iso(receivedAt), amount: amount, currency: currency,
                        properties: properties.flatMap { try? JSONDecoder().decode([String: JSONLiteral].self, from: Data($0.utf8)) },
                        attested: attested,
                        attribution: EventAttribution(method: method, source: source, linkId: linkId, campaign: campaign, channel: channel,
                                                      feature: feature, appleAdsCampaignId: appleAdsCampaignId,
                                                      appleAdsAdGroupId: appleAdsAdGroupId, appleAdsKeywordId: appleAdsKeywordId,
                                                      variant: variant, qr: qr ? true : nil))
        }
    }

    /// An event as the events list shows it.
    struct ListedEvent: Decodable {
        let eventId: String
        let appId: String
        let installId: String
        let type: String
        let name: String?
        let amount: Int64?
        let currency: String?
        let source: String
        let campaign: String?
        let occurredAt: Int64
        let receivedAt: Int64
        /// 1 when the event's install is simulated.
        let simulated: Bool

        var wire: RecentEvent {
            RecentEvent(eventId: eventId, appId: appId, installId: installId, type: type, name: name, amount: amount, currency: currency,
                        source: source, campaign: campaign, simulated: simulated, occurredAt: Timestamp.iso(occurredAt),
                        receivedAt: Timestamp.iso(receivedAt))
        }
    }

    /// Clicks and opens, or previews and bots, of one funnel key.
    struct VisitGroup: Decodable {
        let k: SQLValue
        let kind: String
        let n: Int64
    }

    /// Installs of one funnel key.
    struct InstallGroup: Decodable {
        let k: SQLValue
        let n: Int64
    }

    /// Events of one funnel key, type and currency, with their net amount.
    struct EventGroup: Decodable {
        let k: SQLValue
        let type: String
        let currency: String?
        let n: Int64
        let net: Int64?
    }
}
