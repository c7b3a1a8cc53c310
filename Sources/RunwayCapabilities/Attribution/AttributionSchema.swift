import RunwayKit
import RunwayStore

/// Installs, their secrets and app transaction ids, click claims (on the clicks since 0070), impressions, events and
/// event ids (on PostgreSQL only since 0071). Step 0004 also made the webhook tables, whose SQL `WebhooksSchema` holds.
/// Append only: a released step never changes.
enum AttributionSchema {
    static let migrations: [Migration] = [
        Migration(id: "0004_installs_events", sqlite: installsSQL(partitioning: "", defaults: ""),
                  postgres: installsSQL(partitioning: " PARTITION BY RANGE (created_at)", defaults: """
                      CREATE TABLE impressions_default PARTITION OF impressions DEFAULT;
                      CREATE TABLE events_default PARTITION OF events DEFAULT;
                      """)),
        Migration(id: "0009_event_click_tokens", sql: "ALTER TABLE events ADD COLUMN click_token TEXT;"),
        // The address-hash retention pass finds what it must clear through these (hashed rows only, so they stay small).
        Migration(id: "0010_address_hash_retention", sql: """
            CREATE INDEX clicks_hashed_by_time ON clicks (created_at) WHERE address_hash IS NOT NULL;
            CREATE INDEX installs_hashed_by_time ON installs (matched_at) WHERE address_hash IS NOT NULL;
            CREATE INDEX impressions_by_time ON impressions (created_at);
            """),
        // The hash of the secret a device sent with its install's first match: forgetting the install needs the secret.
        Migration(id: "0019_install_secrets", sql: """
            CREATE TABLE install_secrets (
                app_id TEXT NOT NULL,
                install_id TEXT NOT NULL,
                secret_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, install_id)
            );
            """),
        // StoreKit 2's app transaction id, sent by the SDK with its first match, for joining purchases to installs.
        Migration(id: "0021_install_app_transaction", sql: """
            ALTER TABLE installs ADD COLUMN app_transaction_id TEXT;
            """),
        // The variant of the click an install was matched to, and whether that click came from the link's QR code,
        // carried into the install's events, so reports tell which variant (or scans against taps) earned what.
        Migration(id: "0031_variant_attribution", sql: """
            ALTER TABLE installs ADD COLUMN variant TEXT;
            ALTER TABLE installs ADD COLUMN qr BIGINT NOT NULL DEFAULT 0;
            ALTER TABLE events ADD COLUMN variant TEXT;
            ALTER TABLE events ADD COLUMN qr BIGINT NOT NULL DEFAULT 0;
            """),
        // Only clicks an app resolved carry an install id: a click from a browser no longer adds a NULL entry to this
        // index (lookups by install id imply it is not NULL, so both databases still use it).
        Migration(id: "0040_clicks_by_install_partial", sql: """
            DROP INDEX clicks_by_install;
            CREATE INDEX clicks_by_install ON clicks (install_id, created_at) WHERE install_id IS NOT NULL;
            """),
        // What the SDK 1.2 reports at the first match: the stores Apple's signed app transactions name (iOS 27's
        // AppTransaction.all: consumer, education, enterprise), and App Attest's isSupported where it was expected
        // (false is a fraud signal Apple names). NULL: not reported.
        Migration(id: "0051_install_store_types_attest_support", sql: """
            ALTER TABLE installs ADD COLUMN store_types TEXT;
            ALTER TABLE installs ADD COLUMN app_attest_supported BIGINT;
            """),
        // A match claims its click on the click's own row (`claimed` was already there) rather than in `click_claims`,
        // whose table and two indexes cost three more pages a match to write. Existing claims are copied onto their
        // clicks. The table stays, rows and all: servers of earlier versions still claim there during a rolling
        // upgrade, and forgetting an install clears its rows there too.
        Migration(id: "0070_click_claims_on_clicks", sql: """
            ALTER TABLE clicks ADD COLUMN claimed_app_id TEXT;
            ALTER TABLE clicks ADD COLUMN claimed_install_id TEXT;
            UPDATE clicks SET claimed_app_id = k.app_id, claimed_install_id = k.install_id FROM click_claims k WHERE k.token = clicks.token;
            """),
        // On SQLite an event's id is looked up in the events' own primary key (every write holds the one write lock),
        // so the separate ids, three more B-trees an event, go. Each id there has its event, kept as long as it.
        Migration(id: "0071_sqlite_event_ids_in_events", sqlite: "DROP TABLE event_ids;", postgres: ""),
    ]

    /// Attribution settings of apps, installs with their stored answer and explanation, claims that keep a click to
    /// one install, ad impressions, events with the attribution they were written with (append-only, partitioned by
    /// time on PostgreSQL, their ids kept unique by `event_ids`), and webhooks with their durable delivery queue
    /// (`WebhooksSchema`).
    static func installsSQL(partitioning: String, defaults: String) -> String {
        """
        ALTER TABLE apps ADD COLUMN probabilistic_minutes BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE apps ADD COLUMN view_through_hours BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE apps ADD COLUMN click_window_days BIGINT NOT NULL DEFAULT 7;
        ALTER TABLE clicks ADD COLUMN claimed BIGINT NOT NULL DEFAULT 0;
        CREATE INDEX clicks_unclaimed_by_address ON clicks (workspace_id, address_hash, created_at) WHERE claimed = 0;
        CREATE INDEX clicks_by_install ON clicks (install_id, created_at);
        CREATE TABLE installs (
            app_id TEXT NOT NULL REFERENCES apps (id),
            install_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            platform TEXT NOT NULL,
            os_version TEXT,
            language TEXT,
            method TEXT NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            click_token TEXT,
            impression_id TEXT,
            link_id TEXT,
            campaign TEXT,
            channel TEXT,
            feature TEXT,
            source TEXT NOT NULL,
            address_hash TEXT,
            explanation TEXT NOT NULL,
            simulated BIGINT NOT NULL,
            matched_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, install_id)
        );
        CREATE INDEX installs_by_workspace ON installs (workspace_id, matched_at);
        CREATE TABLE click_claims (
            token TEXT PRIMARY KEY,
            app_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            claimed_at BIGINT NOT NULL
        );
        CREATE INDEX click_claims_by_install ON click_claims (app_id, install_id);
        CREATE TABLE impressions (
            id TEXT NOT NULL,
            app_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            address_hash TEXT NOT NULL,
            network TEXT,
            campaign TEXT,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (id, created_at)
        )\(partitioning);
        CREATE INDEX impressions_by_address ON impressions (app_id, address_hash, created_at);
        CREATE TABLE event_ids (
            app_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, event_id)
        );
        CREATE INDEX event_ids_by_age ON event_ids (received_at);
        CREATE TABLE events (
            app_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            type TEXT NOT NULL,
            name TEXT,
            user_id TEXT,
            occurred_at BIGINT NOT NULL,
            amount BIGINT,
            currency TEXT,
            properties TEXT,
            attested BIGINT NOT NULL,
            method TEXT NOT NULL,
            link_id TEXT,
            campaign TEXT,
            channel TEXT,
            feature TEXT,
            source TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, event_id, received_at)
        )\(partitioning.replacingOccurrences(of: "created_at", with: "received_at"));
        CREATE INDEX events_by_install ON events (app_id, install_id);
        CREATE INDEX events_by_workspace ON events (workspace_id, received_at);
        \(defaults)
        \(WebhooksSchema.tablesOfStep0004)
        """
    }
}
