import RunwayKit
import RunwayStore

/// Conversion schemas, postbacks as received, their keys, forwards and rejections, and ad-network keys. Append only: a
/// released step never changes.
enum PostbacksSchema {
    static let migrations: [Migration] = [
        Migration(id: "0007_postbacks", sqlite: postbacksSQL(blob: "BLOB", partitioning: "", defaults: ""),
                  postgres: postbacksSQL(blob: "BYTEA", partitioning: " PARTITION BY RANGE (received_at)",
                                         defaults: "CREATE TABLE postbacks_default PARTITION OF postbacks DEFAULT;")),
        // Postbacks that fail verification past the day's sample: counted per workspace (or `-`), day, framework and
        // reason, never stored.
        Migration(id: "0018_postback_rejections", sql: """
            CREATE TABLE postback_rejections (
                scope TEXT NOT NULL,
                day BIGINT NOT NULL,
                framework TEXT NOT NULL,
                reason TEXT NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (scope, day, framework, reason)
            );
            """),
        // Each app's AdAttributionKit settings (Info.plist attribution rules and postback copy opt-ins), as JSON.
        Migration(id: "0024_ad_attribution_settings", sql: """
            CREATE TABLE ad_attribution_settings (
                app_id TEXT PRIMARY KEY REFERENCES apps (id),
                document TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            );
            """),
        // Postbacks for Apple's development ad network were stored as production when a production key signed them;
        // they belong to the sandbox view, with those signed by a development key.
        Migration(id: "0025_development_postbacks", sql: """
            UPDATE postbacks SET environment = 'development' WHERE ad_network_id = 'development.adattributionkit';
            """),
        // Placements: what a publisher app's publishable key may have an ad network sign (everything but the
        // impression id and time, which each signature makes fresh). `ad_network_id` is the network's Apple id, kept
        // beside the reference because it never changes and every impression names it.
        Migration(id: "0028_ad_placements", sql: """
            CREATE TABLE ad_placements (
                id TEXT PRIMARY KEY,
                workspace_id TEXT NOT NULL REFERENCES workspaces (id),
                network_id TEXT NOT NULL REFERENCES ad_networks (id),
                ad_network_id TEXT NOT NULL,
                app_id TEXT NOT NULL REFERENCES apps (id),
                name TEXT,
                advertised_item_id BIGINT NOT NULL,
                source_identifier BIGINT NOT NULL,
                publisher_item_id BIGINT NOT NULL,
                eligible_for_reengagement BIGINT NOT NULL,
                reengagement_url TEXT,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX ad_placements_by_network ON ad_placements (network_id, created_at, id);
            """),
        // AdAttributionKit's marketplace, and for each field Apple withholds below the postback data tier that allows
        // it, whether this postback lacks it: 1 lacks it (a source identifier: fewer than four digits), 0 has it, NULL
        // when the postback's format has no such field. What the stored columns tell is filled in for postbacks
        // received before; their marketplace was not kept, so it stays NULL and they count in no share of it.
        Migration(id: "0060_postback_withheld_fields", sql: """
            ALTER TABLE postbacks ADD COLUMN marketplace TEXT;
            ALTER TABLE postbacks ADD COLUMN lacks_country BIGINT;
            ALTER TABLE postbacks ADD COLUMN lacks_marketplace BIGINT;
            ALTER TABLE postbacks ADD COLUMN lacks_source_digits BIGINT;
            ALTER TABLE postbacks ADD COLUMN lacks_publisher BIGINT;
            UPDATE postbacks SET
                lacks_country = CASE WHEN framework = 'adattributionkit' THEN CASE WHEN country_code IS NULL THEN 1 ELSE 0 END END,
                lacks_source_digits = CASE WHEN source_identifier IS NOT NULL THEN CASE WHEN LENGTH(source_identifier) < 4 THEN 1 ELSE 0 END END,
                lacks_publisher = CASE WHEN framework = 'adattributionkit' OR version <> '1.0'
                    THEN CASE WHEN source_app_id IS NULL AND source_domain IS NULL THEN 1 ELSE 0 END END
            WHERE status <> 'invalid';
            """),
    ]

    /// Conversion schemas (every version kept), Apple's postbacks as received (append-only, partitioned by time on
    /// PostgreSQL, kept unique by `postback_keys`), their forwarding queue, and the ad-network keys that sign
    /// impressions.
    static func postbacksSQL(blob: String, partitioning: String, defaults: String) -> String {
        """
        ALTER TABLE apps ADD COLUMN postback_settings TEXT;
        CREATE INDEX apps_by_app_store_id ON apps (app_store_id);
        CREATE TABLE conversion_schemas (
            app_id TEXT NOT NULL REFERENCES apps (id),
            version BIGINT NOT NULL,
            document TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, version)
        );
        CREATE TABLE postbacks (
            id TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            framework TEXT NOT NULL,
            host TEXT,
            workspace_id TEXT,
            app_id TEXT,
            body \(blob) NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            detail TEXT,
            version TEXT,
            kid TEXT,
            environment TEXT NOT NULL,
            ad_network_id TEXT,
            campaign_id TEXT,
            source_identifier TEXT,
            campaign TEXT,
            app_store_id TEXT,
            transaction_id TEXT,
            sequence_index BIGINT NOT NULL,
            did_win BIGINT,
            redownload BIGINT,
            conversion_type TEXT,
            fidelity_type BIGINT,
            source_app_id TEXT,
            source_domain TEXT,
            fine_value BIGINT,
            coarse_value TEXT,
            country_code TEXT,
            interaction_type TEXT,
            tier TEXT,
            schema_version BIGINT,
            decoded TEXT,
            PRIMARY KEY (id, received_at)
        )\(partitioning);
        CREATE INDEX postbacks_by_app ON postbacks (app_id, received_at);
        CREATE INDEX postbacks_by_workspace ON postbacks (workspace_id, received_at);
        \(defaults)
        CREATE TABLE postback_keys (
            scope TEXT NOT NULL,
            dedup_key TEXT NOT NULL,
            postback_id TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (scope, dedup_key)
        );
        CREATE INDEX postback_keys_by_age ON postback_keys (received_at);
        CREATE TABLE postback_forwards (
            id TEXT PRIMARY KEY,
            postback_id TEXT NOT NULL,
            app_id TEXT NOT NULL,
            url TEXT NOT NULL,
            body \(blob) NOT NULL,
            status TEXT NOT NULL,
            attempts BIGINT NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            lease_until BIGINT,
            last_status BIGINT,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            delivered_at BIGINT
        );
        CREATE INDEX postback_forwards_due ON postback_forwards (status, next_attempt_at);
        CREATE INDEX postback_forwards_by_postback ON postback_forwards (postback_id);
        CREATE TABLE ad_networks (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            ad_network_id TEXT NOT NULL,
            private_key TEXT NOT NULL,
            public_key TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            UNIQUE (workspace_id, ad_network_id)
        );
        """
    }
}
