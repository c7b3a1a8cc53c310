import AppleFormats
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Placements and the impressions publisher apps get for them. The ad network defines a placement with a server key;
/// a publisher app asks with its publishable key and gets a fresh AdAttributionKit JWS of exactly that placement, so a
/// publishable key (which every copy of the app carries) can never have the server sign another app, source identifier
/// or publisher.
struct AdPlacementHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let network = try await self.network(context, principal)
        let body = try request.decode(CreateAdPlacementRequest.self)
        // Another workspace's app reads as no app at all, so ids of other workspaces are not confirmed.
        guard let app = try await services.apps.app(id: body.appId), app.workspaceId == network.workspaceId else {
            throw RequestError.invalidField("appId", "no app of the ad network's workspace has this id")
        }
        let now = services.clock.nowMilliseconds()
        let placement = try AdPlacements.placement(body, network: network, app: app, now: now)
        try await services.store.write { db in try AdPlacementQueries.insert(db, placement, now: now) }
        return try .json(placement, status: 201)
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let network = try await self.network(context, principal)
        let page = try PageRequest(request)
        return try .json(await readPage(services.store, table: "ad_placements", columns: PostbackRows.PlacementRow.columns,
                                        filter: " AND network_id = \(network.id)", page: page,
                                        as: PostbackRows.PlacementRow.self, wire: \.wire, id: \.id))
    }

    func delete(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("placementId")
        guard let placement = try await services.store.read({ db in try AdPlacementQueries.placement(db, id: id) }) else {
            throw RequestError.notFound("no placement \(id)")
        }
        try principal.requireWorkspace(placement.workspaceId)
        try await services.store.write { db in try AdPlacementQueries.delete(db, id: id) }
        return HTTPResponse(status: 204)
    }

    /// A publisher app's impression: only its own app's placements exist for its key (another app's placement is
    /// `not_found`, as an unknown one is), and the answer changes nothing stored.
    func impression(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("placementId")
        guard let (placement, sealedKey) = try await services.store.read({ db in try AdPlacementQueries.placementWithKey(db, id: id) }),
              placement.appId == principal.appId else {
            throw RequestError.notFound("no placement \(id) for this app")
        }
        let signed = try AdPlacements.signed(placement, key: try AdNetworks.signingKey(sealedKey, services), now: services.clock.nowMilliseconds())
        var response = try HTTPResponse.json(signed, status: 201)
        // Each answer is a new impression: nothing between the app and the server may hand one out twice.
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// The ad network named in the path, when this key reaches its workspace.
    private func network(_ context: RequestContext, _ principal: Principal) async throws -> AdNetwork {
        let id = try context.parameter("networkId")
        guard let network = try await services.store.read({ db in try PostbackQueries.adNetwork(db, id: id) }) else {
            throw RequestError.notFound("no ad network \(id)")
        }
        try principal.requireWorkspace(network.workspaceId)
        return network
    }
}
