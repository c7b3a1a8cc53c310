import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The SQL of the link tables that the routes, redirects and upkeep run, and the install's rows that forget and export
/// take (links themselves are read and written through `LinkRecordQueries`).
enum LinkQueries {
    // MARK: Domains

    static func insertDomain(_ db: any SQLExecutor, _ domain: LinkDomain, now: Int64, verifiedAt: Int64?, token: String?) throws {
        try db.execute("""
            INSERT INTO link_domains (\(raw: LinkRows.Domain.columns))
            VALUES (\(domain.id), \(domain.workspaceId), \(domain.hostname), \(now), \(verifiedAt), \(token))
            """)
    }

    /// Domain `id`, or nil when there is none.
    static func domain(_ db: any SQLExecutor, id: String) throws -> LinkDomain? {
        try db.first("SELECT \(raw: LinkRows.Domain.columns) FROM link_domains WHERE id = \(id)", as: LinkRows.Domain.self)?.wire
    }

    /// The domain named `hostname` as redirects find it, or nil: only a domain whose control is proven serves.
    static func servingDomain(_ db: any SQLExecutor, hostname: String) throws -> LinkDirectory.DomainEntry? {
        try db.first("SELECT id, hostname, workspace_id FROM link_domains WHERE hostname = \(hostname) AND verified_at IS NOT NULL",
                     as: LinkDirectory.DomainEntry.self)
    }

    /// Marks domain `id` verified, unless it already was.
    static func markVerified(_ db: any SQLExecutor, id: String, now: Int64) throws {
        try db.execute("UPDATE link_domains SET verified_at = \(now), verification_token = NULL WHERE id = \(id) AND verified_at IS NULL")
    }

    static func domainHasLinks(_ db: any SQLExecutor, hostname: String) throws -> Bool {
        try db.first("SELECT 1 AS one FROM links WHERE domain = \(hostname) LIMIT 1") != nil
    }

    static func deleteDomain(_ db: any SQLExecutor, id: String) throws {
        try db.execute("DELETE FROM link_domains WHERE id = \(id)")
    }

    /// The workspace's domain named `hostname`, or its first one.
    static func pickDomain(_ db: any SQLExecutor, workspaceId: String, hostname: String?) throws -> String {
        if let hostname {
            let host = try LinkValidate.hostname(hostname, field: "domain")
            guard try db.first("SELECT 1 AS one FROM link_domains WHERE hostname = \(host) AND workspace_id = \(workspaceId)") != nil else {
                throw RequestError.invalidField("domain", "\(host) is not a link domain of this workspace")
            }
            return host
        }
        guard let first = try db.first("SELECT hostname FROM link_domains WHERE workspace_id = \(workspaceId) ORDER BY created_at, id LIMIT 1",
                                       as: LinkRows.Hostname.self) else {
            throw LinksError.noLinkDomain
        }
        return first.hostname
    }

    /// The workspace's verified link domains, oldest first: the https hosts that reach this server for it.
    static func verifiedHostnames(_ db: any SQLExecutor, workspaceId: String) throws -> [String] {
        try db.query("""
            SELECT hostname FROM link_domains WHERE workspace_id = \(workspaceId) AND verified_at IS NOT NULL ORDER BY created_at, id
            """, as: LinkRows.Hostname.self).map(\.hostname)
    }

    // MARK: Links

    /// The workspace filter of a link listing, narrowed by the query's `appId`, `domain`, `campaign`, `channel`,
    /// `feature`, `kind` and `enabled`.
    static func linkFilter(_ workspace: SQL, _ request: HTTPRequest, enabled: Bool?) -> SQL {
        var filter = workspace
        for (parameter, column) in [("appId", "app_id"), ("domain", "domain"), ("campaign", "campaign"), ("channel", "channel"),
                                    ("feature", "feature"), ("kind", "kind")] {
            if let value = request.queryValue(parameter) { filter = filter + " AND \(raw: column) = \(value)" }
        }
        if let enabled { filter = filter + " AND enabled = \(enabled)" }
        if let text = request.queryValue("q")?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty {
            // A substring of the path, in-app path, campaign or channel, any case; % and _ are matched as themselves.
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            let pattern = "%" + escaped + "%"
            filter = filter + """
                 AND (LOWER(path) LIKE \(pattern) ESCAPE '\\' OR LOWER(COALESCE(app_path, '')) LIKE \(pattern) ESCAPE '\\' \
                OR LOWER(COALESCE(campaign, '')) LIKE \(pattern) ESCAPE '\\' OR LOWER(COALESCE(channel, '')) LIKE \(pattern) ESCAPE '\\')
                """
        }
        return filter
    }

    /// The app a new link opens: the one asked for (it must be the workspace's), else the workspace's only app.
    static func resolveApp(_ db: any SQLExecutor, workspaceId: String, requested: String?) throws -> String? {
        if let requested {
            guard let app = try TenancyQueries.app(db, id: requested), app.workspaceId == workspaceId else {
                throw RequestError.invalidField("appId", "no app of this workspace has this id")
            }
            return app.id
        }
        let apps = try db.query("SELECT id FROM apps WHERE workspace_id = \(workspaceId) LIMIT 2", as: LinkRows.Id.self)
        return apps.count == 1 ? apps.first?.id : nil
    }

    /// Inserts the link; a generated path (8 base32 characters) is drawn again while taken.
    static func insert(_ link: inout LinkRecord, db: any SQLExecutor, custom: Bool) throws {
        if custom {
            if try LinkRecord.find(db, domain: link.domain, path: link.path) != nil {
                throw LinksError.pathTaken(domain: link.domain, path: link.path)
            }
        } else {
            repeat {
                link.path = SecureRandom.linkPath()
            } while try LinkRecord.find(db, domain: link.domain, path: link.path) != nil
        }
        do {
            try link.insert(db)
        } catch StoreError.conflict {
            throw LinksError.pathTaken(domain: link.domain, path: link.path)
        }
    }

    /// The preview of the app's newest enabled link to `appPath`, if it has one.
    static func sharePreview(_ db: any SQLExecutor, appId: String, appPath: String?) throws -> LinkPreview? {
        try db.first("""
            SELECT preview_title, preview_description, preview_image_url FROM links
            WHERE app_id = \(appId) AND app_path = \(appPath) AND kind = 'link' AND enabled = \(true)
            ORDER BY created_at DESC LIMIT 1
            """, as: LinkRows.Preview.self)?.wire
    }

    // MARK: Referral codes

    /// The app's code for `userId` when there is one, else for `installId` (and no user).
    static func referralCode(_ db: any SQLExecutor, appId: String, installId: String?, userId: String?) throws -> ReferralCode? {
        let columns = LinkRows.ReferralCodeRow.columns
        let existing = userId != nil
            ? try db.first("SELECT \(raw: columns) FROM referral_codes WHERE app_id = \(appId) AND user_id = \(userId)", as: LinkRows.ReferralCodeRow.self)
            : try db.first("SELECT \(raw: columns) FROM referral_codes WHERE app_id = \(appId) AND install_id = \(installId) AND user_id IS NULL",
                           as: LinkRows.ReferralCodeRow.self)
        return existing?.wire
    }

    /// Stores the code unless a unique index refuses it; whether it was stored.
    static func insertReferralCode(_ db: any SQLExecutor, workspaceId: String, _ code: ReferralCode, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO referral_codes (workspace_id, code, app_id, install_id, user_id, created_at)
            VALUES (\(workspaceId), \(code.code), \(code.appId), \(code.installId), \(code.userId), \(now)) ON CONFLICT DO NOTHING
            """) == 1
    }

    /// Code `code` (upper case) of workspace `workspaceId`, or of any workspace when that is nil.
    static func referralCode(_ db: any SQLExecutor, code: String, workspaceId: String?) throws -> ReferralCode? {
        let columns = LinkRows.ReferralCodeRow.columns
        let row = if let workspaceId {
            try db.first("SELECT \(raw: columns) FROM referral_codes WHERE code = \(code) AND workspace_id = \(workspaceId)", as: LinkRows.ReferralCodeRow.self)
        } else {
            try db.first("SELECT \(raw: columns) FROM referral_codes WHERE code = \(code)", as: LinkRows.ReferralCodeRow.self)
        }
        return row?.wire
    }

    // MARK: Association files

    /// The enabled, unexpired links on the domain that open an app: the app's `team.bundle` id, its platforms, the path.
    static func associatedPaths(_ db: any SQLExecutor, _ domain: LinkDirectory.DomainEntry,
                                now: Int64) throws -> [(appID: String, platforms: String, path: String)] {
        try db.query("""
            SELECT a.team_id, a.bundle_id, a.platforms, l.path FROM links l JOIN apps a ON a.id = l.app_id
            WHERE l.domain = \(domain.hostname) AND l.workspace_id = \(domain.workspaceId) AND l.enabled = 1
              AND (l.expires_at IS NULL OR l.expires_at > \(now))
            ORDER BY a.team_id, a.bundle_id, l.path
            """, as: LinkRows.AssociatedPath.self).map { (appID: $0.teamId + "." + $0.bundleId, platforms: $0.platforms, path: $0.path) }
    }

    /// Adds one visit of a preview or bot to the link's counter of the day.
    static func countAutomatedVisit(_ db: any SQLExecutor, linkId: String, workspaceId: String, day: Int64, kind: String, agent: String) throws {
        try db.execute("""
            INSERT INTO link_automated_visits (link_id, workspace_id, day, kind, agent, visits)
            VALUES (\(linkId), \(workspaceId), \(day), \(kind), \(agent), 1)
            ON CONFLICT (link_id, day, kind, agent) DO UPDATE SET visits = link_automated_visits.visits + 1
            """)
    }

    // MARK: Forgetting and exporting an install

    /// Deletes the install's clicks and opens; how many.
    static func deleteVisits(_ db: any SQLExecutor, of install: InstallReference) throws -> Int {
        try db.execute("DELETE FROM clicks WHERE install_id = \(install.installId) AND workspace_id = \(install.workspaceId)")
    }

    /// Deletes the click of `token` (the one an install was matched to); how many rows.
    static func deleteClick(_ db: any SQLExecutor, token: String) throws -> Int {
        try db.execute("DELETE FROM clicks WHERE token = \(token)")
    }

    /// Deletes the install's referral codes; how many.
    static func deleteReferralCodes(_ db: any SQLExecutor, of install: InstallReference) throws -> Int {
        try db.execute("DELETE FROM referral_codes WHERE app_id = \(install.appId) AND install_id = \(install.installId)")
    }

    /// Clears the install from the shares it made, which stay; how many.
    static func unlinkShares(_ db: any SQLExecutor, of install: InstallReference) throws -> Int {
        try db.execute("""
            UPDATE links SET referrer_install_id = NULL WHERE workspace_id = \(install.workspaceId) AND referrer_install_id = \(install.installId)
            """)
    }

    // Columns named: a server of an older release, next to this one on PostgreSQL, would see `*` change shape.

    /// The install's clicks and opens, oldest first.
    static func visits(_ db: any SQLExecutor, of install: InstallReference) throws -> [LinkRows.Visit] {
        try db.query("""
            SELECT \(raw: LinkRows.Visit.columns) FROM clicks WHERE install_id = \(install.installId) AND workspace_id = \(install.workspaceId) ORDER BY created_at
            """, as: LinkRows.Visit.self)
    }

    /// The click of `token`, if it is stored.
    static func visit(_ db: any SQLExecutor, token: String) throws -> LinkRows.Visit? {
        try db.first("SELECT \(raw: LinkRows.Visit.columns) FROM clicks WHERE token = \(token)", as: LinkRows.Visit.self)
    }

    /// The install's referral codes.
    static func referralCodes(_ db: any SQLExecutor, of install: InstallReference) throws -> [ReferralCode] {
        try db.query("""
            SELECT \(raw: LinkRows.ReferralCodeRow.columns) FROM referral_codes WHERE app_id = \(install.appId) AND install_id = \(install.installId)
            """, as: LinkRows.ReferralCodeRow.self).map(\.wire)
    }

    /// The ids of the links the install shared, oldest first.
    static func sharedLinkIds(_ db: any SQLExecutor, of install: InstallReference) throws -> [String] {
        try db.query("""
            SELECT id FROM links WHERE workspace_id = \(install.workspaceId) AND referrer_install_id = \(install.installId) ORDER BY created_at
            """, as: LinkRows.Id.self).map(\.id)
    }

    // MARK: Upkeep

    /// Deletes the counts of previews and bots of the days before `firstKeptDay`.
    static func deleteAutomatedVisits(_ db: any SQLExecutor, before firstKeptDay: Int64) throws {
        try db.execute("DELETE FROM link_automated_visits WHERE day < \(firstKeptDay)")
    }

    /// Clears the address hashes of clicks made before `cutoff` (milliseconds); how many.
    static func clearAddressHashes(_ db: any SQLExecutor, before cutoff: Int64) throws -> Int {
        try db.execute("UPDATE clicks SET address_hash = NULL WHERE address_hash IS NOT NULL AND created_at < \(cutoff)")
    }

    /// The workspace's apps with an Android package, oldest first.
    static func androidApps(_ db: any SQLExecutor, workspaceId: String) throws -> [App] {
        try db.query("SELECT \(raw: TenancyRows.appColumns) FROM apps WHERE workspace_id = \(workspaceId) AND android_package IS NOT NULL ORDER BY created_at, id",
                     as: TenancyRows.AppRow.self).map { try $0.wire() }
    }
}

extension SecureRandom {
    /// A generated link path: 8 lower-case base32 characters (40 bits; paths are public, not secret).
    static func linkPath() -> String { string(length: 8, alphabet: base32) }
}
