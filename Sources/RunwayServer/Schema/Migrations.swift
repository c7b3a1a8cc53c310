import Foundation
import RunwayStore

/// Every schema step, in order, for both dialects. Append only: a released step never changes.
public enum Schema {
    public static let migrations: [Migration] = [
        Migration(id: "0001_tenancy", sql: """
            CREATE TABLE instance_meta (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            CREATE TABLE workspaces (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX workspaces_by_creation ON workspaces (created_at, id);
            CREATE TABLE apps (
                id TEXT PRIMARY KEY,
                workspace_id TEXT NOT NULL REFERENCES workspaces (id),
                name TEXT NOT NULL,
                team_id TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                app_store_id TEXT,
                platforms TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                UNIQUE (workspace_id, team_id, bundle_id)
            );
            CREATE INDEX apps_by_workspace ON apps (workspace_id, created_at, id);
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('publishable', 'server', 'admin')),
                name TEXT NOT NULL,
                workspace_id TEXT REFERENCES workspaces (id),
                app_id TEXT REFERENCES apps (id),
                secret_hash TEXT NOT NULL,
                display_prefix TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            );
            CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, created_at, id);
            """),
        Migration(id: "0002_idempotency", sql: """
            CREATE TABLE idempotency_keys (
                scope TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status BIGINT,
                content_type TEXT,
                response_body TEXT,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (scope, idempotency_key)
            );
            CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
            """),
        Migration(id: "0003_links", sqlite: linksSQL(clicksPartitioning: "", defaultPartition: ""),
                  postgres: linksSQL(clicksPartitioning: " PARTITION BY RANGE (created_at)",
                                     defaultPartition: "CREATE TABLE clicks_default PARTITION OF clicks DEFAULT;")),
        Migration(id: "0004_installs_events", sqlite: installsSQL(partitioning: "", defaults: ""),
                  postgres: installsSQL(partitioning: " PARTITION BY RANGE (created_at)", defaults: """
                      CREATE TABLE impressions_default PARTITION OF impressions DEFAULT;
                      CREATE TABLE events_default PARTITION OF events DEFAULT;
                      """)),
        Migration(id: "0005_apple_ads", sql: """
            CREATE TABLE apple_ads_claims (
                app_id TEXT NOT NULL REFERENCES apps (id),
                install_id TEXT NOT NULL,
                workspace_id TEXT NOT NULL,
                token TEXT,
                status TEXT NOT NULL,
                attempts BIGINT NOT NULL,
                not_found_in_a_row BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                lease_until BIGINT,
                last_status BIGINT,
                last_error TEXT,
                org_id TEXT,
                campaign_id TEXT,
                ad_group_id TEXT,
                keyword_id TEXT,
                ad_id TEXT,
                conversion_type TEXT,
                claim_type TEXT,
                click_date BIGINT,
                impression_date BIGINT,
                country_or_region TEXT,
                supply_placement TEXT,
                test_data BIGINT NOT NULL,
                received_at BIGINT NOT NULL,
                resolved_at BIGINT,
                PRIMARY KEY (app_id, install_id)
            );
            CREATE INDEX apple_ads_claims_due ON apple_ads_claims (status, next_attempt_at);
            ALTER TABLE installs ADD COLUMN apple_ads_campaign_id TEXT;
            ALTER TABLE installs ADD COLUMN apple_ads_ad_group_id TEXT;
            ALTER TABLE installs ADD COLUMN apple_ads_keyword_id TEXT;
            ALTER TABLE events ADD COLUMN apple_ads_campaign_id TEXT;
            ALTER TABLE events ADD COLUMN apple_ads_ad_group_id TEXT;
            ALTER TABLE events ADD COLUMN apple_ads_keyword_id TEXT;
            """),
        Migration(id: "0006_app_attest", sql: """
            ALTER TABLE apps ADD COLUMN attest_policy TEXT NOT NULL DEFAULT 'off';
            ALTER TABLE apps ADD COLUMN attest_environments TEXT NOT NULL DEFAULT 'production';
            ALTER TABLE installs ADD COLUMN attested BIGINT NOT NULL DEFAULT 0;
            CREATE TABLE attest_challenges (
                app_id TEXT NOT NULL,
                challenge TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, challenge)
            );
            CREATE INDEX attest_challenges_by_age ON attest_challenges (created_at);
            CREATE TABLE attest_keys (
                app_id TEXT NOT NULL REFERENCES apps (id),
                key_id TEXT NOT NULL,
                install_id TEXT,
                public_key TEXT NOT NULL,
                receipt TEXT NOT NULL,
                environment TEXT NOT NULL,
                counter BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, key_id)
            );
            """),
        Migration(id: "0007_postbacks", sqlite: postbacksSQL(blob: "BLOB", partitioning: "", defaults: ""),
                  postgres: postbacksSQL(blob: "BYTEA", partitioning: " PARTITION BY RANGE (received_at)",
                                         defaults: "CREATE TABLE postbacks_default PARTITION OF postbacks DEFAULT;")),
        Migration(id: "0008_affiliates", sql: affiliatesSQL),
        Migration(id: "0009_event_click_tokens", sql: "ALTER TABLE events ADD COLUMN click_token TEXT;"),
        // The address-hash retention pass finds what it must clear through these (hashed rows only, so they stay small).
        Migration(id: "0010_address_hash_retention", sql: """
            CREATE INDEX clicks_hashed_by_time ON clicks (created_at) WHERE address_hash IS NOT NULL;
            CREATE INDEX installs_hashed_by_time ON installs (matched_at) WHERE address_hash IS NOT NULL;
            CREATE INDEX impressions_by_time ON impressions (created_at);
            """),
        Migration(id: "0011_console", sql: consoleSQL),
        // The primary key (token, created_at) already finds a click by its token; a second index only cost writes.
        Migration(id: "0012_drop_clicks_by_token", sql: "DROP INDEX clicks_by_token;"),
        // Console sign-in attempts per account (a SHA-256 of the email or key prefix), shared by every server process.
        Migration(id: "0013_console_sign_in_attempts", sql: """
            CREATE TABLE console_sign_in_attempts (account_hash TEXT NOT NULL, attempted_at BIGINT NOT NULL);
            CREATE INDEX console_sign_in_attempts_by_account ON console_sign_in_attempts (account_hash, attempted_at);
            """),
        // An Idempotency-Key in progress names the process running it (ServerInstance.owner) and a random claim token
        // the answer must present when it is stored; every running server writes a heartbeat.
        Migration(id: "0014_idempotency_owners", sql: """
            ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
            ALTER TABLE idempotency_keys ADD COLUMN claim TEXT;
            CREATE TABLE server_instances (
                id TEXT PRIMARY KEY,
                owner TEXT NOT NULL,
                started_at BIGINT NOT NULL,
                heartbeat_at BIGINT NOT NULL
            );
            """),
        Migration(id: "0015_one_commission_per_transaction",
                  sqlite: oneCommissionPerTransactionSQL(now: "CAST(strftime('%s', 'now') AS BIGINT) * 1000"),
                  postgres: oneCommissionPerTransactionSQL(now: "CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT)")),
        // Who made each key (a key id or a console user id), so removing a user revokes what they made.
        Migration(id: "0016_key_makers", sql: """
            ALTER TABLE api_keys ADD COLUMN created_by TEXT;
            CREATE INDEX api_keys_by_maker ON api_keys (created_by) WHERE created_by IS NOT NULL;
            """),
        // An App Store id (`store:<id>`) and a team and bundle id (`bundle:<team>.<bundle>`) belong to one app of one
        // workspace. Where several apps already share one, the oldest keeps it; the others are reported.
        Migration(id: "0017_app_identities", sql: """
            CREATE TABLE app_identities (
                identity TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps (id),
                workspace_id TEXT NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX app_identities_by_app ON app_identities (app_id);
            INSERT INTO app_identities (identity, app_id, workspace_id, created_at)
                SELECT 'store:' || app_store_id, id, workspace_id, created_at FROM apps WHERE app_store_id IS NOT NULL ORDER BY created_at, id
                ON CONFLICT (identity) DO NOTHING;
            INSERT INTO app_identities (identity, app_id, workspace_id, created_at)
                SELECT 'bundle:' || team_id || '.' || bundle_id, id, workspace_id, created_at FROM apps WHERE team_id IS NOT NULL ORDER BY created_at, id
                ON CONFLICT (identity) DO NOTHING;
            """),
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
        // A link domain serves once control of its hostname is proven (a DNS TXT record); those added before are.
        Migration(id: "0020_domain_verification", sql: """
            ALTER TABLE link_domains ADD COLUMN verified_at BIGINT;
            ALTER TABLE link_domains ADD COLUMN verification_token TEXT;
            UPDATE link_domains SET verified_at = created_at;
            """),
        // StoreKit 2's app transaction id, sent by the SDK with its first match, for joining purchases to installs.
        Migration(id: "0021_install_app_transaction", sql: """
            ALTER TABLE installs ADD COLUMN app_transaction_id TEXT;
            """),
    ]

    /// What the migrations just applied changed that an operator should hear about, as sentences.
    public static func notes(afterApplying applied: [String], _ store: any Store) async throws -> [String] {
        var notes: [String] = []
        if applied.contains("0015_one_commission_per_transaction") {
            let (marked, reversed) = try await store.read { db in
                (try db.first("SELECT COUNT(*) AS n FROM commissions WHERE status = 'duplicate'")?.int("n") ?? 0,
                 try db.first("SELECT COUNT(*) AS n FROM ledger_postings WHERE kind = 'duplicate_reversal'")?.int("n") ?? 0)
            }
            if marked > 0 {
                notes.append("\(marked) commissions had been stored twice for one App Store transaction and are marked duplicate; " +
                             "\(reversed) of them were live and are reversed by ledger postings of kind duplicate_reversal")
            }
        }
        if applied.contains("0017_app_identities") {
            let losers = try await store.read { db in
                try db.query("""
                    SELECT id FROM apps a WHERE (a.app_store_id IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM app_identities i WHERE i.identity = 'store:' || a.app_store_id AND i.app_id = a.id))
                    OR NOT EXISTS (SELECT 1 FROM app_identities i WHERE i.identity = 'bundle:' || a.team_id || '.' || a.bundle_id AND i.app_id = a.id)
                    """).map { try $0.string("id") }
            }
            if !losers.isEmpty {
                notes.append("\(losers.count) apps share an App Store id or a team and bundle id with an older app: the older one keeps it " +
                             "(postbacks go to it alone), and these must change theirs: \(losers.prefix(20).joined(separator: ", "))")
            }
        }
        return notes
    }

    /// The database decides that a program pays one commission per App Store transaction. Commissions stored twice
    /// before (two notifications of one transaction processed at the same instant) are resolved first: per program and
    /// transaction the oldest live one stays (or the oldest of all, when none is live); each other live one is reversed
    /// by a `duplicate_reversal` posting from the account it sits in, and every other row is marked `duplicate`, which
    /// the unique index leaves out. No row is deleted. A re-accrual after a reversed refund now revives its commission
    /// rather than adding one.
    static func oneCommissionPerTransactionSQL(now: String) -> String {
        """
        UPDATE commissions SET status = 'duplicate_' || status WHERE id IN (
            SELECT id FROM (
                SELECT id, ROW_NUMBER() OVER (
                    PARTITION BY program_id, transaction_id
                    ORDER BY CASE WHEN status IN ('pending', 'payable') THEN 0 ELSE 1 END, created_at, id) AS n
                FROM commissions) ranked
            WHERE n > 1);
        INSERT INTO ledger_postings (id, workspace_id, affiliate_id, program_id, commission_id, kind, currency, test, transaction_id,
                                     reference, created_at)
            SELECT 'lp_dup_' || id, workspace_id, affiliate_id, program_id, id, 'duplicate_reversal', currency, test, transaction_id,
                   'a second commission on this transaction, reversed by migration 0015', \(now)
            FROM commissions WHERE status IN ('duplicate_pending', 'duplicate_payable') AND amount > 0;
        INSERT INTO ledger_entries (posting_id, line, account, amount)
            SELECT 'lp_dup_' || id, 0, CASE status WHEN 'duplicate_pending' THEN 'affiliate_pending' ELSE 'affiliate_payable' END, amount
            FROM commissions WHERE status IN ('duplicate_pending', 'duplicate_payable') AND amount > 0;
        INSERT INTO ledger_entries (posting_id, line, account, amount)
            SELECT 'lp_dup_' || id, 1, 'commission_expense', -amount
            FROM commissions WHERE status IN ('duplicate_pending', 'duplicate_payable') AND amount > 0;
        UPDATE commissions SET status = 'duplicate' WHERE status IN ('duplicate_pending', 'duplicate_payable', 'duplicate_reversed');
        CREATE UNIQUE INDEX commissions_one_per_transaction ON commissions (program_id, transaction_id) WHERE status <> 'duplicate';
        DROP INDEX commissions_by_transaction;
        """
    }

    /// Console users (a PBKDF2 hash of their password, one workspace each) and console sessions (the hash of the
    /// cookie, who signed in, the CSRF token of their forms).
    static let consoleSQL = """
        CREATE TABLE console_users (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            email TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX console_users_by_workspace ON console_users (workspace_id, created_at, id);
        CREATE TABLE console_sessions (
            id_hash TEXT PRIMARY KEY,
            user_id TEXT,
            key_id TEXT,
            kind TEXT NOT NULL,
            workspace_id TEXT,
            csrf TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            last_seen_at BIGINT NOT NULL
        );
        CREATE INDEX console_sessions_by_age ON console_sessions (created_at);
        """

    /// Affiliates, their programs, codes and links; App Store notification surfaces; the appAccountTokens minted at
    /// bind; notifications seen (one row per UUID, which keeps processing idempotent); commissions; and the
    /// double-entry ledger (postings of balanced entries, never updated).
    static let affiliatesSQL = """
        CREATE TABLE affiliates (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            name TEXT NOT NULL,
            external_id TEXT,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX affiliates_by_workspace ON affiliates (workspace_id, created_at, id);
        CREATE TABLE affiliate_programs (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            app_id TEXT NOT NULL REFERENCES apps (id),
            name TEXT NOT NULL,
            commission TEXT NOT NULL,
            hold_days BIGINT NOT NULL,
            offer_code TEXT,
            deferred_minutes BIGINT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX affiliate_programs_by_workspace ON affiliate_programs (workspace_id, created_at, id);
        CREATE TABLE affiliate_codes (
            workspace_id TEXT NOT NULL,
            code TEXT NOT NULL,
            affiliate_id TEXT NOT NULL REFERENCES affiliates (id),
            program_id TEXT NOT NULL REFERENCES affiliate_programs (id),
            created_at BIGINT NOT NULL,
            PRIMARY KEY (workspace_id, code)
        );
        CREATE TABLE affiliate_links (
            link_id TEXT PRIMARY KEY REFERENCES links (id),
            affiliate_id TEXT NOT NULL REFERENCES affiliates (id),
            program_id TEXT NOT NULL REFERENCES affiliate_programs (id)
        );
        CREATE TABLE app_store_surfaces (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            app_id TEXT NOT NULL REFERENCES apps (id),
            environment TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE TABLE app_account_tokens (
            token TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            app_id TEXT NOT NULL,
            affiliate_id TEXT NOT NULL,
            program_id TEXT NOT NULL,
            method TEXT NOT NULL,
            click_token TEXT,
            install_id TEXT,
            attested BIGINT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE TABLE app_store_notifications (
            surface_id TEXT NOT NULL,
            notification_uuid TEXT NOT NULL,
            notification_type TEXT NOT NULL,
            subtype TEXT,
            status TEXT NOT NULL,
            transaction_id TEXT,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (surface_id, notification_uuid)
        );
        CREATE TABLE commissions (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            affiliate_id TEXT NOT NULL,
            program_id TEXT NOT NULL,
            app_account_token TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            purchase_date BIGINT NOT NULL,
            currency TEXT NOT NULL,
            amount BIGINT NOT NULL,
            status TEXT NOT NULL,
            payable_at BIGINT NOT NULL,
            test BIGINT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX commissions_by_transaction ON commissions (program_id, transaction_id);
        CREATE INDEX commissions_by_original ON commissions (program_id, original_transaction_id);
        CREATE INDEX commissions_due ON commissions (status, payable_at);
        CREATE TABLE ledger_postings (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            affiliate_id TEXT NOT NULL,
            program_id TEXT,
            commission_id TEXT,
            kind TEXT NOT NULL,
            currency TEXT NOT NULL,
            test BIGINT NOT NULL,
            notification_uuid TEXT,
            transaction_id TEXT,
            reference TEXT,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX ledger_postings_by_affiliate ON ledger_postings (affiliate_id, created_at, id);
        CREATE INDEX ledger_postings_by_workspace ON ledger_postings (workspace_id, created_at, id);
        CREATE TABLE ledger_entries (
            posting_id TEXT NOT NULL REFERENCES ledger_postings (id),
            line BIGINT NOT NULL,
            account TEXT NOT NULL,
            amount BIGINT NOT NULL,
            PRIMARY KEY (posting_id, line)
        );
        """

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

    /// Attribution settings of apps, installs with their stored answer and explanation, claims that keep a click to
    /// one install, ad impressions, events with the attribution they were written with (append-only, partitioned by
    /// time on PostgreSQL, their ids kept unique by `event_ids`), and webhooks with their durable delivery queue.
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
        CREATE TABLE webhooks (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            topics TEXT NOT NULL,
            enabled BIGINT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX webhooks_by_workspace ON webhooks (workspace_id, created_at, id);
        CREATE TABLE webhook_deliveries (
            id TEXT PRIMARY KEY,
            webhook_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts BIGINT NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            lease_until BIGINT,
            last_status BIGINT,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            delivered_at BIGINT
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
        CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, id);
        """
    }

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
