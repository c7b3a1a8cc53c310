import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Deferred deep links without a device or the App Store: the real click and match code, with the address and
/// User-Agent given in the request. Installs made this way are marked simulated and send no webhooks.
enum SimulationRoutes {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"

    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/simulate/clicks", operation: Operation(
                id: "simulateClick", summary: "Follow a link as a device would (default: an iPhone), recording the click",
                tag: "Simulation", access: Access.management, requestSchema: "SimulateClickRequest",
                responses: [.json(201, "SimulatedClick", "The recorded click and where the device would have gone.")], maxBodyBytes: 8 * 1024,
                errors: [404, 410])
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(SimulateClickRequest.self)
                guard let components = URLComponents(string: body.url), let host = components.host?.lowercased() else {
                    throw HTTPError.invalidField("url", "must be a link's URL")
                }
                let path = components.path.split(separator: "/").joined(separator: "/")
                guard let domain = try await services.links.domain(hostname: host), !path.isEmpty,
                      let link = try await services.links.link(domain: domain.hostname, path: path), link.workspaceId == domain.workspaceId else {
                    throw HTTPError.notFound(ErrorCode.linkNotFound, "no link answers \(body.url)")
                }
                try principal.requireWorkspace(link.workspaceId)
                guard link.enabled, !link.isExpired(at: services.clock.nowMilliseconds()) else {
                    throw HTTPError(status: 410, code: ErrorCode.linkExpired, message: "the link is disabled or expired")
                }
                let address = body.ip ?? request.remoteAddress ?? "127.0.0.1"
                guard IPAddress.isValid(address) else { throw HTTPError.invalidField("ip", "must be a numeric IPv4 or IPv6 address") }
                let client = ClientClass(userAgent: body.userAgent ?? iPhone)
                if case .crawler = client { throw HTTPError.invalidField("userAgent", "is a crawler's; crawlers never count as clicks") }
                let app = try await link.appId.asyncMap { try await services.links.app(id: $0) } ?? nil
                let appStore = (link.iosAppStoreId ?? app?.appStoreId).map { "https://apps.apple.com/app/id\($0)" }
                let query = components.queryItems?.map { (name: $0.name, value: $0.value ?? "") } ?? []
                let (target, interstitialStore, _) = RedirectRoutes.destination(link: link, appStore: appStore, client: client,
                                                                                 query: link.passQuery ? query : [])
                let token = try await Clicks.record(Clicks.Visit(kind: "click", platform: client.platform, osVersion: client.osVersion,
                                                                 address: address, referrerHost: nil, installId: nil), of: link, services: services)
                return try .json(SimulatedClick(clickToken: token, linkId: link.id, platform: client.platform,
                                                location: interstitialStore ?? target), status: 201)
            },

            Route(method: .POST, pattern: "/v1/simulate/installs", operation: Operation(
                id: "simulateInstall", summary: "A first launch as the SDK would send it, from a chosen address",
                tag: "Simulation", access: Access.management, requestSchema: "SimulateInstallRequest",
                responses: [.json(200, "InstallMatch", "The stored answer.")], maxBodyBytes: 8 * 1024)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(SimulateInstallRequest.self)
                guard let app = try await services.links.app(id: body.appId) else { throw HTTPError.invalidField("appId", "no app has this id") }
                try principal.requireWorkspace(app.workspaceId)
                let address = body.ip ?? request.remoteAddress ?? "127.0.0.1"
                guard IPAddress.isValid(address) else { throw HTTPError.invalidField("ip", "must be a numeric IPv4 or IPv6 address") }
                let input = try await InstallRoutes.input(app: app, installId: body.installId ?? UUID().uuidString.lowercased(),
                                                          platform: body.platform ?? "ios", osVersion: body.osVersion, language: nil,
                                                          clickToken: body.clickToken, address: address, simulated: true, services: services)
                return try .json(try await InstallRoutes.match(input, services: services))
            },
        ]
    }
}
