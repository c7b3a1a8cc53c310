import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Forgetting (consent withdrawn), deleting and exporting an installation, through every capability that keeps
/// something of it.
struct PrivacyHandlers: Sendable {
    let services: ServerServices
    let owners: [any Capability]

    func forget(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        guard let appId = principal.appId else { throw AccessError.keyKindForbidden("needs a publishable key") }
        let installId = try Self.installIdentifier(context)
        // A publishable key is public: the device proves the install is its own with the secret it sent first.
        try await InstallSecrets.check(request.headers["LinkRunway-Install-Secret"], appId: appId, installId: installId, services: services)
        return try .json(try await delete(appId: appId, installId: installId))
    }

    func delete(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let installId = try Self.installIdentifier(context)
        let appId = try await appOf(installId: installId, request: request, principal: principal)
        return try .json(try await delete(appId: appId, installId: installId))
    }

    func export(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let installId = try Self.installIdentifier(context)
        let appId = try await appOf(installId: installId, request: request, principal: principal)
        return try .json(try await export(appId: appId, installId: installId))
    }

    static func installIdentifier(_ context: RequestContext) throws -> String {
        guard let id = try Validate.installID(try context.parameter("installId"), field: "installId") else {
            throw AttributionError.unknownInstall(nil)
        }
        return id
    }

    /// The app an install id belongs to within the caller's workspace (`appId` picks one when there are several).
    func appOf(installId: String, request: HTTPRequest, principal: Principal) async throws -> String {
        if let appId = request.queryValue("appId") {
            guard let app = try await services.apps.app(id: appId) else { throw RequestError.invalidQuery("no app \(appId)", field: "appId") }
            try principal.requireWorkspace(app.workspaceId)
            return app.id
        }
        let apps = try await services.store.read { db in
            try PrivacyQueries.apps(db, installId: installId, workspaceId: principal.workspaceId ?? "", everywhere: principal.kind == .admin)
        }
        guard let first = apps.first else { throw AttributionError.unknownInstall(installId) }
        guard apps.count == 1 else { throw AttributionError.ambiguousInstall }
        return first
    }

    /// Deletes the install and everything of it each capability keeps (unlinking what must stay, such as an affiliate's
    /// financial record), in one transaction.
    func delete(appId: String, installId: String) async throws -> DeletionReceipt {
        let now = services.clock.nowMilliseconds()
        let port = services.listening.port
        let counts: [String: Int] = try await services.store.write { db in
            guard let app = try TenancyQueries.app(db, id: appId) else { throw PrivacyError.noApp(appId) }
            let install = InstallReference(appId: appId, installId: installId, workspaceId: app.workspaceId,
                                           clickToken: try AttributionQueries.install(db, appId: appId, installId: installId)?.clickToken, now: now,
                                           localPort: port)
            return try owners.reduce(into: [String: Int]()) { counts, owner in
                counts.merge(try owner.forget(install, db)) { $0 + $1 }
            }
        }
        return DeletionReceipt(installId: installId, appId: appId, deletedAt: Timestamp.iso(now), deleted: counts)
    }

    /// Everything each capability keeps about the installation.
    func export(appId: String, installId: String) async throws -> InstallExport {
        let now = services.clock.nowMilliseconds()
        let port = services.listening.port
        return try await services.store.read { db in
            let record = try AttributionQueries.install(db, appId: appId, installId: installId)
            let workspace = try record?.workspaceId ?? TenancyQueries.app(db, id: appId)?.workspaceId ?? ""
            let install = InstallReference(appId: appId, installId: installId, workspaceId: workspace, clickToken: record?.clickToken, now: now,
                                           localPort: port)
            var export = InstallExport(attribution: nil, events: [], visits: [], referralCodes: [], sharedLinkIds: [])
            for owner in owners { try owner.export(install, db, into: &export) }
            return export
        }
    }
}
