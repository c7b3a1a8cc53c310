import RunwayKit
import RunwayStore

/// Link domains and their proof of control, links, clicks, the daily keys of address hashes and referral codes. Append
/// only: a released step never changes.
enum LinksSchema {
    static let migrations: [Migration] = [
        Migration(id: "0003_links", sqlite: linksSQL(clicksPartitioning: "", defaultPartition: ""),
                  postgres: linksSQL(clicksPartitioning: " PARTITION BY RANGE (created_at)",
                                     defaultPartition: "CREATE TABLE clicks_default PARTITION OF clicks DEFAULT;")),
        // The primary key (token, created_at) already finds a click by its token; a second index only cost writes.
        Migration(id: "0012_drop_clicks_by_token", sql: "DROP INDEX clicks_by_token;"),
        // A link domain serves once control of its hostname is proven (a DNS TXT record); those added before are.
        Migration(id: "0020_domain_verification", sql: """
            ALTER TABLE link_domains ADD COLUMN verified_at BIGINT;
            ALTER TABLE link_domains ADD COLUMN verification_token TEXT;
            UPDATE link_domains SET verified_at = created_at;
            """),
        // Logos a workspace draws at the centre of its QR codes.
        Migration(id: "0026_qr_logos", sqlite: QRLogoQueries.tableSQL(blob: "BLOB"), postgres: QRLogoQueries.tableSQL(blob: "BYTEA")),
        // Previews and bots are counted per link, UTC day, kind and client, never stored as clicks: they take no part
        // in matching and a storm of them costs one row a day.
        Migration(id: "0027_link_automated_visits", sql: """
            CREATE TABLE link_automated_visits (
                link_id TEXT NOT NULL,
                workspace_id TEXT NOT NULL,
                day BIGINT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('preview', 'bot')),
                agent TEXT NOT NULL,
                visits BIGINT NOT NULL,
                PRIMARY KEY (link_id, day, kind, agent)
            );
            CREATE INDEX link_automated_visits_by_workspace ON link_automated_visits (workspace_id, day);
            """),
        // A link's rules and variants (JSON, compiled when the link is read), its start, click limit and fallbacks, and
        // its UTM parameters as fields of their own. A click records its variant, the country of its address (never the
        // address) and whether it came from the link's QR code. (0.2.0's step also moved metadata.utm into the new
        // fields; it was the customer's own JSON, so the step now only adds, and 0047 puts back what it moved.)
        Migration(id: "0030_link_routing", sql: routingSQL),
        // How many clicks of a capped link the processes have reserved between them (ClickAllowances).
        Migration(id: "0032_link_click_allowances", sql: """
            CREATE TABLE link_click_allowances (
                link_id TEXT PRIMARY KEY,
                reserved BIGINT NOT NULL
            );
            """),
        // Each link's daily figures, kept up by the writer and filled from what was stored before (LinkStatsSchema).
        LinkStatsSchema.migration,
        // A click records the app whose own browser it came from (InAppBrowser), and a link may send such people to a
        // page that helps them out of it. The clicks counted before had none: the new dimension's rows are those of
        // the referrer's (every click and open has one referrer value), under no value.
        Migration(id: "0046_in_app_browsers", sql: """
            ALTER TABLE clicks ADD COLUMN in_app_browser TEXT;
            ALTER TABLE links ADD COLUMN in_app_browser_page BIGINT NOT NULL DEFAULT 0;
            INSERT INTO link_stats (link_id, dimension, period, day, value, measure, lane, amount)
            SELECT link_id, 'inAppBrowser', period, day, '', measure, lane, SUM(amount) FROM link_stats WHERE dimension = 'referrer'
            GROUP BY link_id, period, day, measure, lane;
            """),
        // Puts back in metadata.utm what 0.2.0's step 0030 moved out of it, on the links nobody changed since: their UTM
        // fields can only have come from there.
        Migration(id: "0047_link_metadata_restored", sqlite: LinkMetadataRestore.sqlite, postgres: LinkMetadataRestore.postgres),
        // Year rows beside day and month rows; they are read once `LinkStatsYears.build` has made them.
        LinkStatsSchema.years,
        // On SQLite, previews and bots clustered by their key, so a link's year of them is read in order, not looked
        // up row by row; the key columns come first (SQLite 3.40's integrity check misreads a column after a key
        // column of a table without rowid). PostgreSQL's table stays as it is.
        Migration(id: "0069_automated_visits_clustered", sqlite: """
            CREATE TABLE link_automated_visits_next (
                link_id TEXT NOT NULL,
                day BIGINT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('preview', 'bot')),
                agent TEXT NOT NULL,
                workspace_id TEXT NOT NULL,
                visits BIGINT NOT NULL,
                PRIMARY KEY (link_id, day, kind, agent)
            ) WITHOUT ROWID;
            INSERT INTO link_automated_visits_next (link_id, day, kind, agent, workspace_id, visits)
            SELECT link_id, day, kind, agent, workspace_id, visits FROM link_automated_visits;
            DROP TABLE link_automated_visits;
            ALTER TABLE link_automated_visits_next RENAME TO link_automated_visits;
            CREATE INDEX link_automated_visits_by_workspace ON link_automated_visits (workspace_id, day);
            """, postgres: "-- nothing: PostgreSQL keeps its table and index as they are"),
    ]

    static let routingSQL = """
        ALTER TABLE links ADD COLUMN rules TEXT;
        ALTER TABLE links ADD COLUMN variants TEXT;
        ALTER TABLE links ADD COLUMN starts_at BIGINT;
        ALTER TABLE links ADD COLUMN click_limit BIGINT;
        ALTER TABLE links ADD COLUMN fallback_before_start TEXT;
        ALTER TABLE links ADD COLUMN fallback_expired TEXT;
        ALTER TABLE links ADD COLUMN fallback_over_limit TEXT;
        ALTER TABLE links ADD COLUMN utm_source TEXT;
        ALTER TABLE links ADD COLUMN utm_medium TEXT;
        ALTER TABLE links ADD COLUMN utm_campaign TEXT;
        ALTER TABLE links ADD COLUMN utm_term TEXT;
        ALTER TABLE links ADD COLUMN utm_content TEXT;
        ALTER TABLE clicks ADD COLUMN variant TEXT;
        ALTER TABLE clicks ADD COLUMN country TEXT;
        ALTER TABLE clicks ADD COLUMN qr BIGINT NOT NULL DEFAULT 0;

        """

    /// Link domains, links, clicks (append-only, partitioned by time on PostgreSQL), the daily keys of address
    /// hashes, referral codes, and Android app identity for assetlinks.json.
    static func linksSQL(clicksPartitioning: String, defaultPartition: String) -> String {
        """
        ALTER TABLE apps ADD COLUMN android_package TEXT;
        ALTER TABLE apps ADD COLUMN android_fingerprints TEXT;
        CREATE TABLE link_domains (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            hostname TEXT NOT NULL UNIQUE,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX link_domains_by_workspace ON link_domains (workspace_id, created_at, id);
        CREATE TABLE links (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            app_id TEXT REFERENCES apps (id),
            kind TEXT NOT NULL CHECK (kind IN ('link', 'share')),
            domain TEXT NOT NULL REFERENCES link_domains (hostname),
            path TEXT NOT NULL,
            path_key TEXT NOT NULL,
            app_path TEXT,
            metadata TEXT,
            ios_app_store_id TEXT,
            ios_url TEXT,
            android_url TEXT,
            web_url TEXT,
            campaign TEXT,
            channel TEXT,
            feature TEXT,
            preview_title TEXT,
            preview_description TEXT,
            preview_image_url TEXT,
            interstitial BIGINT NOT NULL,
            pass_query BIGINT NOT NULL,
            enabled BIGINT NOT NULL,
            expires_at BIGINT,
            referrer_install_id TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            UNIQUE (domain, path_key)
        );
        CREATE INDEX links_by_workspace ON links (workspace_id, created_at, id);
        CREATE TABLE clicks (
            token TEXT NOT NULL,
            kind TEXT NOT NULL,
            link_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            app_id TEXT,
            platform TEXT NOT NULL,
            os_version TEXT,
            address_hash TEXT,
            referrer_host TEXT,
            install_id TEXT,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (token, created_at)
        )\(clicksPartitioning);
        \(defaultPartition)
        CREATE INDEX clicks_by_link ON clicks (link_id, created_at);
        CREATE INDEX clicks_by_token ON clicks (token);
        CREATE TABLE address_keys (
            day TEXT PRIMARY KEY,
            secret TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE TABLE referral_codes (
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            code TEXT NOT NULL,
            app_id TEXT NOT NULL REFERENCES apps (id),
            install_id TEXT,
            user_id TEXT,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (workspace_id, code)
        );
        CREATE UNIQUE INDEX referral_codes_by_install ON referral_codes (app_id, install_id) WHERE install_id IS NOT NULL AND user_id IS NULL;
        CREATE UNIQUE INDEX referral_codes_by_user ON referral_codes (app_id, user_id) WHERE user_id IS NOT NULL;
        """
    }
}

/// The SQL of step 0047. Step 0030 of release 0.2.0 moved the text values of `metadata.utm` (`{"utm":{"source":…}}`)
/// into the link's new UTM fields, removing them from the metadata the customer wrote, so resolve and match stopped
/// returning them and redirects began to carry them. This puts each value back under `metadata.utm` and clears the
/// field, for the links not changed since 0030 ran (`updated_at` before its `applied_at`): their UTM fields did not
/// exist before, so 0030 alone can have set them. A link changed since is left as it is.
enum LinkMetadataRestore {
    static let keys = ["source", "medium", "campaign", "term", "content"]

    static let untouchedSince0030 = """
        updated_at < (SELECT applied_at FROM schema_migrations WHERE id = '0030_link_routing')
        """

    static let sqlite = keys.map { key in
        """
        UPDATE links SET metadata = json_set(CASE WHEN json_type(metadata, '$.utm') = 'object' THEN metadata
                                                  ELSE json_set(COALESCE(metadata, '{}'), '$.utm', json('{}')) END,
                                             '$.utm.\(key)', utm_\(key)),
                         utm_\(key) = NULL
        WHERE utm_\(key) IS NOT NULL AND (metadata IS NULL OR json_valid(metadata)) AND \(untouchedSince0030);

        """
    }.joined()

    static let postgres = keys.map { key in
        """
        UPDATE links SET metadata = jsonb_set(COALESCE(metadata::jsonb, '{}'::jsonb), '{utm}',
                                              (CASE WHEN jsonb_typeof(metadata::jsonb -> 'utm') = 'object' THEN metadata::jsonb -> 'utm'
                                                    ELSE '{}'::jsonb END) || jsonb_build_object('\(key)', utm_\(key)))::text,
                         utm_\(key) = NULL
        WHERE utm_\(key) IS NOT NULL AND \(untouchedSince0030);

        """
    }.joined()
}
