import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Conversion schemas and the SDK's configuration, Apple's postback copies, the postbacks stored and their report, and
/// ad network identities that sign impressions.
struct PostbackHandlers: Sendable {
    let services: ServerServices

    func setSchema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        let (rules, laterWindows) = try ConversionSchemas.validate(try request.decode(ConversionSchemaRequest.self))
        let document = try ConversionSchemas.document(rules: rules, laterWindows: laterWindows)
        let now = services.clock.nowMilliseconds()
        let version: Int64 = try await services.store.write { db in
            try PostbackQueries.insertSchema(db, appId: app.id, document: document, now: now)
        }
        return try .json(ConversionSchema(appId: app.id, version: Int(version), rules: rules, laterWindows: laterWindows,
                                          createdAt: Timestamp.iso(now)), status: 201)
    }

    func schema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        guard let schema = try await services.store.read({ db in try PostbackQueries.latestSchema(db, appId: app.id) }) else {
            throw RequestError.notFound("app \(app.id) has no conversion schema yet")
        }
        return try .json(schema)
    }

    func schemaVersions(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        let versions = try await services.store.read { db in try PostbackQueries.schemaVersions(db, appId: app.id) }
        return try .json(ConversionSchemaList(items: versions))
    }

    func mobileConfig(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let appId = try context.parameter("appId")
        guard principal.appId == appId, let app = try await services.apps.app(id: appId) else {
            throw AccessError.otherApp
        }
        let schema = try await services.store.read { db in try PostbackQueries.latestSchema(db, appId: app.id) }
        let refreshSeconds = ConversionSchemas.refreshSeconds
        let etag = "\"cs-\(schema?.version ?? 0)\""
        let cacheControl = "private, max-age=\(refreshSeconds)"
        if let held = request.headers["If-None-Match"], held.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            var response = HTTPResponse(status: 304)
            response.headers.set("ETag", etag)
            response.headers.set("Cache-Control", cacheControl)
            return response
        }
        var response = try HTTPResponse.json(MobileConfig(appId: app.id, conversions: schema, refreshSeconds: refreshSeconds))
        response.headers.set("ETag", etag)
        response.headers.set("Cache-Control", cacheControl)
        return response
    }

    func receiveSKAdNetwork(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try await receive(request, framework: .skadnetwork)
    }

    func receiveAdAttributionKit(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try await receive(request, framework: .adattributionkit)
    }

    private func receive(_ request: HTTPRequest, framework: PostbackVerdict.Framework) async throws -> HTTPResponse {
        let receipt = try await PostbackReceiver.receive(request.body, framework: framework, host: request.headers["Host"], services: services)
        return try .json(receipt)
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let workspaceFilter = try await principal.workspaceFilter(request, in: services.store)
        let appId = request.queryValue("appId")
        let status = request.queryValue("status")
        if let status {
            guard ["valid", "invalid", "duplicate"].contains(status) else {
                throw RequestError.invalidQuery("status must be valid, invalid or duplicate", field: "status")
            }
        }
        let environment = try Self.environment(request)
        let rows = try await services.store.read { db in
            try PostbackQueries.postbacks(db, workspaceFilter: workspaceFilter, appId: appId, status: status, environment: environment,
                                          cursor: page.cursor, limit: page.limit)
        }
        let items = Array(rows.prefix(page.limit))
        return try .json(Page(items: items, nextCursor: rows.count > page.limit ? items.last?.id : nil))
    }

    func report(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let query = try ReportQuery(request, principal: try context.principal(), now: services.clock.nowMilliseconds(),
                                    groupings: PostbackReports.groupings)
        let environment = try Self.environment(request) ?? PostbackReports.environments[0]
        let report = try await services.store.read { db in
            try PostbackReports.report(db, workspaceId: query.workspaceId, appId: query.appId, from: query.from, to: query.to, groupBy: query.groupBy,
                                       environment: environment)
        }
        return try query.respond(request, report, csv: { PostbackReports.csv(report) }, filename: "postbacks.csv")
    }

    /// The `environment` query: `production` or `development` (the sandbox view), or nil when absent.
    static func environment(_ request: HTTPRequest) throws -> String? {
        guard let environment = request.queryValue("environment") else { return nil }
        guard PostbackReports.environments.contains(environment) else {
            throw RequestError.invalidQuery("environment must be production or development", field: "environment")
        }
        return environment
    }

    func createAdNetwork(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateAdNetworkRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        if let problem = AdNetworkIdentifier.problem(body.adNetworkId) { throw RequestError.invalidField("adNetworkId", problem) }
        let key: PrivateKey
        if let pem = body.privateKeyPem {
            guard let imported = PrivateKey.pem(pem), imported.publicKey?.curve == "prime256v1" else {
                throw RequestError.invalidField("privateKeyPem", "must be a P-256 private key in PEM")
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
        let sealed = services.secretBox.seal(pem, purpose: AdNetworks.keyPurpose)
        do {
            try await services.store.write { db in try PostbackQueries.insertAdNetwork(db, network, sealedKey: sealed, now: now) }
        } catch StoreError.conflict {
            throw PostbacksError.adNetworkTaken(body.adNetworkId)
        } catch StoreError.constraint {
            throw RequestError.invalidField("workspaceId", "no workspace has this id")
        }
        return try .json(network, status: 201)
    }

    func listAdNetworks(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let filter = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "ad_networks", columns: PostbackRows.AdNetworkRow.columns, filter: filter,
                                        page: page, as: PostbackRows.AdNetworkRow.self, wire: \.wire, id: \.id))
    }

    func signImpression(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("networkId")
        let body = try request.decode(SignImpressionRequest.self)
        guard let (network, sealedKey) = try await services.store.read({ db in try PostbackQueries.adNetworkWithKey(db, id: id) }) else {
            throw RequestError.notFound("no ad network \(id)")
        }
        try principal.requireWorkspace(network.workspaceId)
        let key = try AdNetworks.signingKey(sealedKey, services)
        let impression = try AdNetworks.impression(body, network: network, now: services.clock.nowMilliseconds())
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
            signed.recordedImpressionId = try await self.record(record, network: network, impression: impression, principal: principal)
        }
        return try .json(signed, status: 201)
    }

    /// Records the impression for view-through matching, as `POST /v1/impressions` would.
    private func record(_ record: ImpressionRecord, network: AdNetwork, impression: AdImpression, principal: Principal) async throws -> String {
        guard let app = try await services.apps.app(id: record.appId) else { throw RequestError.invalidField("record.appId", "no app has this id") }
        try principal.requireWorkspace(app.workspaceId)
        guard app.workspaceId == network.workspaceId else { throw RequestError.invalidField("record.appId", "must be an app of the ad network's workspace") }
        guard IPAddress.isValid(record.ip) else { throw RequestError.invalidField("record.ip", "must be a numeric IPv4 or IPv6 address") }
        let campaign = try LinkValidate.tag(record.campaign ?? String(impression.sourceIdentifier), field: "record.campaign")
        let at = min(impression.timestamp, services.clock.nowMilliseconds())
        let hash = try await services.addresses.hash(record.ip, at: at)
        let id = Identifier.make("imp")
        try await services.store.write { db in
            try AttributionQueries.insertImpression(db, id: id, app: app, addressHash: hash, network: network.adNetworkId, campaign: campaign, at: at)
        }
        return id
    }
}
