import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Consent withdrawal and deletion of an installation, and the export of everything stored about one: each capability
/// (of `owners`) forgets and exports its own rows.
struct PrivacyCapability: Capability {
    let owners: [any Capability]

    func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/installs/{installId}/forget", operation: Operation(
                id: "forgetInstall", summary: "Consent withdrawn: delete everything stored about this installation of the key's app",
                tag: "Installs", access: Access.client, responses: [.json(200, "DeletionReceipt", "What was deleted.")], errors: [403], rateLimited: true)
            ) { request, context in
                let principal = try context.principal()
                guard let appId = principal.appId else { throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "needs a publishable key") }
                let installId = try Self.installIdentifier(context)
                // A publishable key is public: the device proves the install is its own with the secret it sent first.
                try await InstallSecrets.check(request.headers["LinkRunway-Install-Secret"], appId: appId, installId: installId, services: services)
                return try .json(try await delete(appId: appId, installId: installId, services: services))
            },

            Route(method: .DELETE, pattern: "/v1/installs/{installId}", operation: Operation(
                id: "deleteInstall", summary: "Delete everything stored about an installation", tag: "Installs", access: Access.management,
                responses: [.json(200, "DeletionReceipt", "What was deleted.")],
                query: [QueryParameterDoc("appId", "The app (required when the id is known in several of the workspace's apps).")])
            ) { request, context in
                let principal = try context.principal()
                let installId = try Self.installIdentifier(context)
                let appId = try await Self.appOf(installId: installId, request: request, principal: principal, services: services)
                return try .json(try await delete(appId: appId, installId: installId, services: services))
            },

            Route(method: .GET, pattern: "/v1/installs/{installId}/export", operation: Operation(
                id: "exportInstall", summary: "Everything stored about an installation", tag: "Installs", access: Access.management,
                responses: [.json(200, "InstallExport", "The installation's data.")],
                query: [QueryParameterDoc("appId", "The app (required when the id is known in several of the workspace's apps).")])
            ) { request, context in
                let principal = try context.principal()
                let installId = try Self.installIdentifier(context)
                let appId = try await Self.appOf(installId: installId, request: request, principal: principal, services: services)
                return try .json(try await export(appId: appId, installId: installId, services: services))
            },
        ]
    }

    static func installIdentifier(_ context: RequestContext) throws -> String {
        guard let id = try Validate.installID(try context.parameter("installId"), field: "installId") else {
            throw HTTPError.notFound(ErrorCode.unknownInstall, "no install")
        }
        return id
    }

    /// The app an install id belongs to within the caller's workspace (`appId` picks one when there are several).
    static func appOf(installId: String, request: HTTPRequest, principal: Principal, services: ServerServices) async throws -> String {
        if let appId = request.queryValue("appId") {
            guard let app = try await services.links.app(id: appId) else { throw HTTPError.badRequest(ErrorCode.invalidQuery, "no app \(appId)", field: "appId") }
            try principal.requireWorkspace(app.workspaceId)
            return app.id
        }
        let apps = try await services.store.read { db in
            try db.query("""
                SELECT DISTINCT app_id FROM installs WHERE install_id = \(installId) AND (\(principal.kind == .admin) = 1 OR workspace_id = \(principal.workspaceId ?? ""))
                UNION SELECT DISTINCT app_id FROM events WHERE install_id = \(installId) AND (\(principal.kind == .admin) = 1 OR workspace_id = \(principal.workspaceId ?? ""))
                """).map { try $0.string("app_id") }
        }
        guard let first = apps.first else { throw HTTPError.notFound(ErrorCode.unknownInstall, "no install \(installId)") }
        guard apps.count == 1 else { throw HTTPError.badRequest(ErrorCode.invalidQuery, "the install id is known in several apps; add ?appId=", field: "appId") }
        return first
    }

    /// Deletes the install and everything of it each capability keeps (unlinking what must stay, such as an affiliate's
    /// financial record), in one transaction.
    func delete(appId: String, installId: String, services: ServerServices) async throws -> DeletionReceipt {
        let now = services.clock.nowMilliseconds()
        let counts: [String: Int] = try await services.store.write { db in
            guard let app = try TenancyQueries.app(db, id: appId) else { throw HTTPError.notFound(ErrorCode.unknownInstall, "no app \(appId)") }
            let install = InstallReference(appId: appId, installId: installId, workspaceId: app.workspaceId,
                                           clickToken: try InstallRecord.find(db, appId: appId, installId: installId)?.clickToken, now: now)
            return try owners.reduce(into: [String: Int]()) { counts, owner in
                counts.merge(try owner.forget(install, db)) { $0 + $1 }
            }
        }
        return DeletionReceipt(installId: installId, appId: appId, deletedAt: Timestamp.iso(now), deleted: counts)
    }

    /// Everything each capability keeps about the installation.
    func export(appId: String, installId: String, services: ServerServices) async throws -> InstallExport {
        let now = services.clock.nowMilliseconds()
        return try await services.store.read { db in
            let record = try InstallRecord.find(db, appId: appId, installId: installId)
            let workspace = try record?.workspaceId ?? TenancyQueries.app(db, id: appId)?.workspaceId ?? ""
            let install = InstallReference(appId: appId, installId: installId, workspaceId: workspace, clickToken: record?.clickToken, now: now)
            var export = InstallExport(attribution: nil, events: [], visits: [], referralCodes: [], sharedLinkIds: [])
            for owner in owners { try owner.export(install, db, into: &export) }
            return export
        }
    }
}
