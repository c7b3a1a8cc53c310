import RunwayStore

/// The SQL of `links` as `LinkRecord` reads and writes it: a row of `LinkRecord.columns`, with the path's key.
enum LinkRecordQueries {
    /// Inserts the link's row; with `unlessTaken`, a domain and path another link holds leave it out instead of failing
    /// the transaction. Whether it was inserted.
    static func insert(_ db: any SQLExecutor, _ link: LinkRecord, unlessTaken: Bool) throws -> Bool {
        let insert: SQL = """
            INSERT INTO links (\(raw: LinkRecord.columns), path_key)
            VALUES (\(link.id), \(link.workspaceId), \(link.appId), \(link.kind), \(link.domain), \(link.path), \(link.appPath), \(link.metadata), \(link.iosAppStoreId),
                    \(link.iosURL), \(link.androidURL), \(link.webURL), \(link.campaign), \(link.channel), \(link.feature), \(link.previewTitle),
                    \(link.previewDescription), \(link.previewImageURL), \(link.interstitial), \(link.passQuery), \(link.enabled), \(link.expiresAt),
                    \(link.referrerInstallId), \(link.createdAt), \(link.updatedAt), \(LinkRecord.stored(link.rules)), \(LinkRecord.stored(link.variants)), \(link.startsAt),
                    \(link.clickLimit), \(link.fallbacks.beforeStart), \(link.fallbacks.expired), \(link.fallbacks.overLimit), \(link.utm.source), \(link.utm.medium),
                    \(link.utm.campaign), \(link.utm.term), \(link.utm.content), \(link.inAppBrowserPage), \(LinkRecord.key(link.path)))
            """
        return try db.execute(unlessTaken ? insert + " ON CONFLICT DO NOTHING" : insert) == 1
    }

    /// Writes the link's changeable fields to its row.
    static func update(_ db: any SQLExecutor, _ link: LinkRecord) throws {
        try db.execute("""
            UPDATE links SET app_path = \(link.appPath), metadata = \(link.metadata), ios_app_store_id = \(link.iosAppStoreId),
                ios_url = \(link.iosURL), android_url = \(link.androidURL), web_url = \(link.webURL), campaign = \(link.campaign),
                channel = \(link.channel), feature = \(link.feature), preview_title = \(link.previewTitle),
                preview_description = \(link.previewDescription), preview_image_url = \(link.previewImageURL),
                interstitial = \(link.interstitial), pass_query = \(link.passQuery), enabled = \(link.enabled), expires_at = \(link.expiresAt),
                updated_at = \(link.updatedAt), rules = \(LinkRecord.stored(link.rules)), variants = \(LinkRecord.stored(link.variants)), starts_at = \(link.startsAt),
                click_limit = \(link.clickLimit), fallback_before_start = \(link.fallbacks.beforeStart), fallback_expired = \(link.fallbacks.expired),
                fallback_over_limit = \(link.fallbacks.overLimit), utm_source = \(link.utm.source), utm_medium = \(link.utm.medium),
                utm_campaign = \(link.utm.campaign), utm_term = \(link.utm.term), utm_content = \(link.utm.content),
                in_app_browser_page = \(link.inAppBrowserPage)
            WHERE id = \(link.id)
            """)
    }

    /// Whether `link`'s row is as it was read: no edit since (`updated_at`) and no referrer forgotten since.
    static func isUnchanged(_ db: any SQLExecutor, _ link: LinkRecord) throws -> Bool {
        try db.first("""
            SELECT 1 AS one FROM links WHERE id = \(link.id) AND updated_at = \(link.updatedAt)
              AND referrer_install_id IS NOT DISTINCT FROM \(link.referrerInstallId)
            """) != nil
    }

    /// Link `id`, or nil when there is none.
    static func link(_ db: any SQLExecutor, id: String) throws -> LinkRecord? {
        try db.first("SELECT \(raw: LinkRecord.columns) FROM links WHERE id = \(id)", as: LinkRecord.self)
    }

    /// The link at `path` (any case) on `domain`, or nil when there is none.
    static func link(_ db: any SQLExecutor, domain: String, path: String) throws -> LinkRecord? {
        try db.first("SELECT \(raw: LinkRecord.columns) FROM links WHERE domain = \(domain) AND path_key = \(LinkRecord.key(path))", as: LinkRecord.self)
    }
}
