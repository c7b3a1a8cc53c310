import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about placements and the impressions publisher apps get for them.
extension Operation {
    static let createAdPlacement = Operation(
        id: "createAdPlacement",
        summary: "Define a placement: the impression one publisher app may have this ad network sign (advertised app, source identifier, publisher)",
        tag: "Ad networks", access: Access.management, requestSchema: .of(CreateAdPlacementRequest.self),
        responses: [.json(201, AdPlacement.self, "The placement.")], maxBodyBytes: 8 * 1024, errors: [404])

    static let listAdPlacements = Operation(
        id: "listAdPlacements", summary: "The ad network's placements, oldest first", tag: "Ad networks", access: Access.management,
        responses: [.json(200, Page<AdPlacement>.self, "A page of placements.")], query: pageQuery, errors: [404])

    static let deleteAdPlacement = Operation(
        id: "deleteAdPlacement", summary: "Remove a placement: publisher apps asking for it get 404 from then on", tag: "Ad networks",
        access: Access.management, responses: [ResponseDoc(status: 204, description: "Removed.")], errors: [404])

    static let placementImpression = Operation(
        id: "placementImpression",
        summary: "A new AdAttributionKit impression of one of this app's placements, signed for AppImpression(compactJWS:): fresh id and time, "
            + "everything else as the ad network defined it; another app's placement is 404",
        tag: "Ad networks", access: Access.client,
        responses: [.json(201, PlacementImpression.self, "The signed impression (Cache-Control: no-store).")], errors: [404, 429], rateLimited: true)
}
