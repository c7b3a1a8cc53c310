import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// The ad-network side: identities whose P-256 keys sign impressions (AdAttributionKit JWS or SKAdNetwork 4.0
/// signatures), optionally recording each impression for view-through matching. The private key is stored as PEM,
/// because signing needs it, and is never returned.
enum AdNetworkRoutes {
    static let columns = "id, workspace_id, ad_network_id, public_key, created_at"
    static let formats = ["adattributionkit", "skadnetwork-4.0"]

    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/ad-networks", operation: Operation(
                id: "createAdNetwork", summary: "Add an ad network identity with its P-256 key (made here unless you bring the one Apple knows)",
                tag: "Ad networks", access: Access.management, requestSchema: "CreateAdNetworkRequest",
                responses: [.json(201, "AdNetwork", "The identity and its public key.")], maxBodyBytes: 16 * 1024, errors: [409])
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateAdNetworkRequest.self)
                guard let workspaceId = body.workspaceId ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
                guard (3...100).contains(body.adNetworkId.count),
                      body.adNetworkId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                    throw HTTPError.invalidField("adNetworkId", "must be an ad network id such as example.skadnetwork")
                }
                let key: PrivateKey
                if let pem = body.privateKeyPem {
                    guard let imported = PrivateKey.pem(pem), imported.publicKey?.curve == "prime256v1" else {
                        throw HTTPError.invalidField("privateKeyPem", "must be a P-256 private key in PEM")
                    }
                    key = imported
                } else {
                    guard let made = PrivateKey.generateP256() else { throw StoreError.failed("OpenSSL could not make a key") }
                    key = made
                }
                guard let pem = key.pem, let publicKey = key.publicKey else { throw StoreError.failed("OpenSSL could not export the key") }
                let now = services.clock.nowMilliseconds()
                let network = AdNetwork(id: Identifier.make("adn"), workspaceId: workspaceId, adNetworkId: body.adNetworkId,
                                        publicKey: Data(publicKey.spki).base64EncodedString(), createdAt: Timestamp.iso(now))
                let sealed = services.secretBox.seal(pem, purpose: "ad_networks.private_key")
                do {
                    try await services.store.write { db in
                        try db.execute("""
                            INSERT INTO ad_networks (id, workspace_id, ad_network_id, private_key, public_key, created_at)
                            VALUES (\(network.id), \(workspaceId), \(network.adNetworkId), \(sealed), \(network.publicKey), \(now))
                            """)
                    }
                } catch StoreError.conflict {
                    throw HTTPError.conflict(ErrorCode.conflict, "this workspace already has ad network \(body.adNetworkId)")
                } catch StoreError.constraint {
                    throw HTTPError.invalidField("workspaceId", "no workspace has this id")
                }
                return try .json(network, status: 201)
            },

            Route(method: .GET, pattern: "/v1/ad-networks", operation: Operation(
                id: "listAdNetworks", summary: "List ad network identities (never their private keys)", tag: "Ad networks",
                access: Access.management, responses: [.json(200, "AdNetworkPage", "A page of identities.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                let filter = try principal.workspaceFilter(request)
                return try .json(await readPage(services.store, table: "ad_networks", columns: columns, filter: filter, page: page,
                                                row: network, id: \.id))
            },

            Route(method: .POST, pattern: "/v1/ad-networks/{networkId}/impressions", operation: Operation(
                id: "signImpression", summary: "Sign an impression as AdAttributionKit JWS or SKAdNetwork 4.0, and optionally record it",
                tag: "Ad networks", access: Access.management, requestSchema: "SignImpressionRequest",
                responses: [.json(201, "SignedImpression", "The signed impression.")], maxBodyBytes: 8 * 1024)
            ) { request, context in
                let principal = try context.principal()
                let id = try context.parameter("networkId")
                let body = try request.decode(SignImpressionRequest.self)
                guard let row = try await services.store.read({ db in
                    try db.first("SELECT \(raw: columns), private_key FROM ad_networks WHERE id = \(id)")
                }) else {
                    throw HTTPError.notFound(ErrorCode.notFound, "no ad network \(id)")
                }
                let network = try network(row)
                try principal.requireWorkspace(network.workspaceId)
                guard let key = PrivateKey.pem(try services.secretBox.reveal(try row.string("private_key"), purpose: "ad_networks.private_key")) else {
                    throw StoreError.corrupt("a stored ad network key is unreadable")
                }
                let impression = try impression(body, network: network, now: services.clock.nowMilliseconds())
                var signed = SignedImpression(format: body.format, adNetworkId: network.adNetworkId, impressionId: impression.impressionId,
                                              timestamp: impression.timestamp, sourceIdentifier: impression.sourceIdentifier,
                                              advertisedItemId: impression.advertisedItemId, publisherItemId: impression.publisherItemId,
                                              fidelityType: impression.fidelityType)
                if body.format == "adattributionkit" {
                    signed.jws = impression.signAdAttributionKit(with: key)
                } else {
                    signed.signature = impression.signSKAdNetwork4(with: key)
                    signed.signedMessage = impression.skAdNetwork4Message
                }
                if let record = body.record {
                    signed.recordedImpressionId = try await Self.record(record, network: network, impression: impression, principal: principal,
                                                                        services: services)
                }
                return try .json(signed, status: 201)
            },
        ]
    }

    static func network(_ row: SQLRow) throws -> AdNetwork {
        AdNetwork(id: try row.string("id"), workspaceId: try row.string("workspace_id"), adNetworkId: try row.string("ad_network_id"),
                  publicKey: try row.string("public_key"), createdAt: Timestamp.iso(try row.int("created_at")))
    }

    /// Checks a signing request against Apple's ranges.
    static func impression(_ body: SignImpressionRequest, network: AdNetwork, now: Int64) throws -> AdImpression {
        guard formats.contains(body.format) else { throw HTTPError.invalidField("format", "must be adattributionkit or skadnetwork-4.0") }
        guard (0...9999).contains(body.sourceIdentifier) else { throw HTTPError.invalidField("sourceIdentifier", "must be up to four digits") }
        guard (1...999_999_999_999).contains(body.advertisedItemId) else { throw HTTPError.invalidField("advertisedItemId", "must be an App Store id") }
        let publisher = body.publisherItemId ?? 0
        guard (0...999_999_999_999).contains(publisher) else { throw HTTPError.invalidField("publisherItemId", "must be an App Store id, or 0") }
        let impressionId = body.impressionId ?? UUID().uuidString
        guard UUID(uuidString: impressionId) != nil else { throw HTTPError.invalidField("impressionId", "must be a UUID") }
        let timestamp = body.timestamp ?? now
        guard (now - 86_400_000)...(now + 86_400_000) ~= timestamp else { throw HTTPError.invalidField("timestamp", "must be within a day of now, in milliseconds") }
        let fidelity = body.fidelityType ?? 1
        guard fidelity == 0 || fidelity == 1 else { throw HTTPError.invalidField("fidelityType", "must be 0 (view-through) or 1 (StoreKit-rendered)") }
        return AdImpression(adNetworkId: network.adNetworkId, sourceIdentifier: body.sourceIdentifier, advertisedItemId: body.advertisedItemId,
                            publisherItemId: publisher, impressionId: impressionId, timestamp: timestamp, fidelityType: fidelity,
                            eligibleForReengagement: body.eligibleForReengagement)
    }

    /// Records the impression for view-through matching, as `POST /v1/impressions` would.
    static func record(_ record: ImpressionRecord, network: AdNetwork, impression: AdImpression, principal: Principal,
                       services: ServerServices) async throws -> String {
        guard let app = try await services.links.app(id: record.appId) else { throw HTTPError.invalidField("record.appId", "no app has this id") }
        try principal.requireWorkspace(app.workspaceId)
        guard app.workspaceId == network.workspaceId else { throw HTTPError.invalidField("record.appId", "must be an app of the ad network's workspace") }
        guard IPAddress.isValid(record.ip) else { throw HTTPError.invalidField("record.ip", "must be a numeric IPv4 or IPv6 address") }
        let campaign = try LinkValidate.tag(record.campaign ?? String(impression.sourceIdentifier), field: "record.campaign")
        let at = min(impression.timestamp, services.clock.nowMilliseconds())
        let hash = try await services.addresses.hash(record.ip, at: at)
        let id = Identifier.make("imp")
        try await services.store.write { db in
            try db.execute("""
                INSERT INTO impressions (id, app_id, workspace_id, address_hash, network, campaign, created_at)
                VALUES (\(id), \(app.id), \(app.workspaceId), \(hash), \(network.adNetworkId), \(campaign), \(at))
                """)
        }
        return id
    }
}
