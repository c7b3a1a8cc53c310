import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// An app's AdAttributionKit settings, the Info.plist keys they and the workspace make, and the check of an
/// Info.plist against Apple's rules.
struct InfoPlistHandlers: Sendable {
    let services: ServerServices

    func settings(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let settings = try await services.store.read { db in try PostbackQueries.adAttributionSettings(db, appId: app.id) }
        return try .json(settings ?? AdAttributionSettings())
    }

    func setSettings(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let settings = try request.decode(AdAttributionSettings.self)
        try AdAttributionSettingsRules.validate(settings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let document = String(decoding: try encoder.encode(settings), as: UTF8.self)
        let now = services.clock.nowMilliseconds()
        try await services.store.write { db in try PostbackQueries.setAdAttributionSettings(db, appId: app.id, document: document, now: now) }
        return try .json(settings)
    }

    func fragment(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let role = request.queryValue("role") ?? InfoPlistFragment.roles[0]
        guard InfoPlistFragment.roles.contains(role) else {
            throw RequestError.invalidQuery("role must be \(InfoPlistFragment.roles.joined(separator: ", "))", field: "role")
        }
        let (settings, hosts, networks) = try await services.store.read { db in
            (try PostbackQueries.adAttributionSettings(db, appId: app.id) ?? AdAttributionSettings(),
             try LinkQueries.verifiedHostnames(db, workspaceId: app.workspaceId),
             try PostbackQueries.adNetworkIds(db, workspaceId: app.workspaceId))
        }
        var entries: InfoPlistRendering.Entries = []
        if role != "publisher" { entries += InfoPlistRendering.advertised(settings, endpointHost: hosts.first) }
        if role != "advertised" { entries += InfoPlistRendering.publisher(adNetworkIds: networks) }
        let notes = InfoPlistRendering.notes(role: role, endpointHost: hosts.first, adNetworkIds: networks)
        return try .json(InfoPlistFragment(appId: app.id, role: role, plist: PropertyList.dictionary(entries).xmlDocument, notes: notes))
    }

    func check(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CheckInfoPlistRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        guard (1...262_144).contains(body.plist.count) else {
            throw RequestError.invalidField("plist", "must be an Info.plist of 1 to 262144 characters")
        }
        let hosts = try await services.store.read { db in try LinkQueries.verifiedHostnames(db, workspaceId: workspaceId) }
        let findings = AttributionPlistCheck.check(Array(body.plist.utf8), serverHosts: hosts).map { finding in
            InfoPlistFinding(level: finding.level.rawValue, key: finding.key, message: finding.message)
        }
        return try .json(InfoPlistCheck(findings: findings))
    }
}
