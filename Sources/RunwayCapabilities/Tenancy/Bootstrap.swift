import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// First start on an empty database: one workspace and one admin key, created once even when several servers start
/// together (the `bootstrap` row is the guard).
public enum Bootstrap {
    public struct Result: Sendable {
        public let workspace: Workspace
        /// The admin key's text; it exists nowhere else, so it must be shown now.
        public let adminKey: String
    }

    /// Returns the new workspace and key, or nil when the database was bootstrapped before. `linkDomain` becomes the
    /// workspace's first link domain (`localhost` by default, so links work on a development machine at once).
    public static func run(store: any Store, clock: WallClock, linkDomain: String? = "localhost") async throws -> Result? {
        let now = clock.nowMilliseconds()
        let secret = APIKeySecret.generate(kind: .admin)
        let workspace = Workspace(id: Identifier.make("ws"), name: "Default", createdAt: Timestamp.iso(now))
        return try await store.write { db in
            guard try TenancyQueries.claimBootstrap(db, now: now) else { return nil }
            try TenancyQueries.insertWorkspace(db, id: workspace.id, name: workspace.name, now: now)
            try TenancyQueries.insertKey(db, secret: secret, name: "first admin key", workspaceId: nil, appId: nil,
                                          createdBy: nil, now: now)
            if let linkDomain { try TenancyQueries.insertFirstDomain(db, workspaceId: workspace.id, hostname: linkDomain, now: now) }
            return Result(workspace: workspace, adminKey: secret.text)
        }
    }
}
