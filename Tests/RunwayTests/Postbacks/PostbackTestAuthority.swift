@testable import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayCrypto
import RunwayJSON
import RunwayTestKit
import Testing

/// Stands in for Apple where Apple publishes no sample postback (Apple Ads' postbacks, every postback data tier): a
/// P-256 key made here signs SKAdNetwork postbacks over their version's fields and AdAttributionKit JWS payloads
/// under Apple's production `kid`, and the receiver is handed this key in place of Apple's.
struct PostbackTestAuthority {
    static let productionKid = "apple-cas-identifier/0"
    let key: PrivateKey
    let keys: PostbackKeys

    init() throws {
        key = try #require(PrivateKey.generateP256())
        let publicKey = try #require(key.publicKey)
        keys = PostbackKeys(skadnetworkP256: publicKey, skadnetworkP192: nil,
                            adAttributionKit: [Self.productionKid: .init(key: publicKey, development: false)])
    }

    /// A SKAdNetwork postback with `members`, signed over the fields its `version` signs, in Apple's order.
    func skadnetwork(_ members: [(String, JSONValue)]) throws -> [UInt8] {
        let version = members.first { $0.0 == "version" }?.1.stringValue ?? "1.0"
        let order = try #require(SKAdNetworkPostback.signedFields[version], "no SKAdNetwork \(version)").map(\.name)
        return PostbackSigningTests.signed(members, fields: order, key: key)
    }

    /// An AdAttributionKit stanza: `payload` signed as Apple's production JWS, with `unsigned` members beside it.
    func adAttributionKit(_ payload: [(String, JSONValue)], unsigned: [(String, JSONValue)] = []) throws -> [UInt8] {
        let jws = try #require(CompactJWS.sign(payload: .object(payload), kid: Self.productionKid, key: key))
        return JSONValue.object([("jws-string", .string(jws))] + unsigned).serializedBytes()
    }

    /// Receives a body as the receiver does Apple's, checked against this authority's key.
    func receive(_ body: [UInt8], _ framework: PostbackVerdict.Framework, by server: TestServer) async throws -> PostbackReceipt {
        try await PostbackReceiver.receive(body, framework: framework, host: "localhost", services: server.services, keys: keys)
    }

    /// SKAdNetwork 3.0 as Apple documents it: one winning postback with a campaign id (1–100).
    static func skadnetwork30(network: String, campaign: Int, appStoreId: Int64 = 525463029) -> [(String, JSONValue)] {
        [("version", "3.0"), ("ad-network-id", .string(network)), ("campaign-id", .number(String(campaign))),
         ("app-id", .number(String(appStoreId))), ("transaction-id", .string(UUID().uuidString.lowercased())), ("redownload", false),
         ("fidelity-type", 1), ("did-win", true), ("conversion-value", 5)]
    }

    /// SKAdNetwork 4.0's first window: a hierarchical source identifier, and a publisher app only when given.
    static func skadnetwork40(network: String, source: String, sourceApp: Int64? = nil, fine: Int? = nil,
                              appStoreId: Int64 = 525463029) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("version", "4.0"), ("ad-network-id", .string(network)), ("source-identifier", .string(source)),
            ("app-id", .number(String(appStoreId))), ("transaction-id", .string(UUID().uuidString.lowercased())), ("redownload", false),
            ("fidelity-type", 1), ("did-win", true), ("postback-sequence-index", 0),
        ]
        if let sourceApp { members.append(("source-app-id", .number(String(sourceApp)))) }
        if let fine { members.append(("conversion-value", .number(String(fine)))) }
        return members
    }

    /// An AdAttributionKit JWS payload, with a publisher and marketplace only when given.
    static func adAttributionKitPayload(network: String, source: String, publisher: Int64? = nil, marketplace: String? = nil,
                                        conversionType: String = "download", appStoreId: Int64 = 525463029) -> [(String, JSONValue)] {
        var payload: [(String, JSONValue)] = [
            ("postback-identifier", .string(UUID().uuidString)), ("ad-network-identifier", .string(network)),
            ("advertised-item-identifier", .number(String(appStoreId))), ("source-identifier", .string(source)),
            ("impression-type", "app-impression"), ("did-win", true), ("postback-sequence-index", 0),
            ("conversion-type", .string(conversionType)),
        ]
        if let publisher { payload.append(("publisher-item-identifier", .number(String(publisher)))) }
        if let marketplace { payload.append(("marketplace-identifier", .string(marketplace))) }
        return payload
    }
}
