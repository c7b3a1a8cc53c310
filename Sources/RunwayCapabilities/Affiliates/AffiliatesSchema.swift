import RunwayKit
import RunwayStore

/// Affiliates, programs, codes and links, App Store surfaces and notifications, binds, commissions and the ledger.
/// Append only: a released step never changes.
enum AffiliatesSchema {
    static let migrations: [Migration] = [
        Migration(id: "0008_affiliates", sql: affiliatesSQL),
        Migration(id: "0015_one_commission_per_transaction",
                  sqlite: oneCommissionPerTransactionSQL(now: "CAST(strftime('%s', 'now') AS BIGINT) * 1000"),
                  postgres: oneCommissionPerTransactionSQL(now: "CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT)")),
        Migration(id: "0022_app_store_2026", sql: appStore2026SQL),
        // A deferred bind takes its affiliate click for one install (or one anonymous bind), so one tap behind a shared
        // address does not earn the binds of everyone behind it.
        Migration(id: "0042_deferred_click_claims", sql: """
            CREATE TABLE deferred_click_claims (
                token TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                claimant TEXT NOT NULL,
                claimed_at BIGINT NOT NULL
            );
            CREATE INDEX deferred_click_claims_by_age ON deferred_click_claims (claimed_at);
            """),
        // A subscription that migrated (MIGRATION) keeps its referrer: its new original transaction id leads to the one
        // before (previousOriginalTransactionId). Notifications record seats and ownership (multiseat, API 1.22).
        Migration(id: "0049_subscription_migrations", sql: """
            CREATE TABLE app_store_subscription_migrations (
                app_id TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                previous_original_transaction_id TEXT NOT NULL,
                recorded_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, original_transaction_id)
            );
            ALTER TABLE app_store_notifications ADD COLUMN quantity BIGINT;
            ALTER TABLE app_store_notifications ADD COLUMN in_app_ownership_type TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN previous_original_transaction_id TEXT;
            """),
        // App transaction ids proven by Apple's signature: the first install to prove one owns it, later ones dispute it.
        Migration(id: "0044_app_transaction_owners", sql: """
            CREATE TABLE app_transaction_owners (
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                app_transaction_id TEXT NOT NULL,
                install_id TEXT NOT NULL,
                proven_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, environment, app_transaction_id)
            );
            CREATE INDEX app_transaction_owners_by_install ON app_transaction_owners (app_id, install_id);
            CREATE TABLE app_transaction_disputes (
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                app_transaction_id TEXT NOT NULL,
                install_id TEXT NOT NULL,
                owner_install_id TEXT NOT NULL,
                reported_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, environment, app_transaction_id, install_id)
            );
            CREATE INDEX app_transaction_disputes_by_install ON app_transaction_disputes (app_id, install_id);
            """),
        // Notifications keep each value Apple enumerates as it was sent, so a value Apple adds is shown, never refused:
        // the notification's environment and an external purchase token's type, the transaction's product type,
        // revocation reason, transaction reason and storefront, the app transaction's store; and why one was ignored.
        // The app's recent notifications are listed newest first.
        Migration(id: "0065_app_store_values_as_sent", sql: """
            ALTER TABLE app_store_notifications ADD COLUMN environment TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN transaction_type TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN revocation_reason TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN transaction_reason TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN storefront TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN store_type TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN token_type TEXT;
            ALTER TABLE app_store_notifications ADD COLUMN reason TEXT;
            CREATE INDEX app_store_notifications_by_time ON app_store_notifications (surface_id, received_at);
            """),
        // A program may pay for purchases of consumer App Store installs only: those whose signed app transactions named
        // only education or enterprise stores accrue nothing under it.
        Migration(id: "0066_consumer_stores_only", sql: """
            ALTER TABLE affiliate_programs ADD COLUMN consumer_stores_only BIGINT NOT NULL DEFAULT 0;
            """),
    ]

    /// After step 0015: how many commissions stored twice were marked, and how many of them reversed.
    static let notes: [String: @Sendable (any Store) async throws -> String?] = [
        "0015_one_commission_per_transaction": { store in
            let (marked, reversed) = try await store.read { db in
                (try db.count("SELECT COUNT(*) AS n FROM commissions WHERE status = 'duplicate'"),
                 try db.count("SELECT COUNT(*) AS n FROM ledger_postings WHERE kind = 'duplicate_reversal'"))
            }
            guard marked > 0 else { return nil }
            return "\(marked) commissions had been stored twice for one App Store transaction and are marked duplicate; " +
                "\(reversed) of them were live and are reversed by ledger postings of kind duplicate_reversal"
        },
    ]

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

    /// What App Store transactions carry since 2025–26, kept with the notification that brought them: the app
    /// transaction id, the offer's period and discount type, how a refund was revoked and which share of it, and the
    /// billing plan. Commissions gain how much of them was clawed back (all of a reversed one), the app transaction id,
    /// and the commitment of a monthly plan with what the whole commitment would earn. App transactions whose consent
    /// a parent rescinded are remembered by their SHA-256 alone, so later notifications of them are not processed.
    /// Indexes join a purchase to its install by app transaction id, and an install to its binds.
    static let appStore2026SQL = """
        ALTER TABLE app_store_notifications ADD COLUMN app_transaction_id TEXT;
        ALTER TABLE app_store_notifications ADD COLUMN offer_type BIGINT;
        ALTER TABLE app_store_notifications ADD COLUMN offer_discount_type TEXT;
        ALTER TABLE app_store_notifications ADD COLUMN offer_period TEXT;
        ALTER TABLE app_store_notifications ADD COLUMN revocation_type TEXT;
        ALTER TABLE app_store_notifications ADD COLUMN revocation_percentage BIGINT;
        ALTER TABLE app_store_notifications ADD COLUMN billing_plan_type TEXT;
        ALTER TABLE commissions ADD COLUMN clawed_back BIGINT NOT NULL DEFAULT 0;
        UPDATE commissions SET clawed_back = amount WHERE status = 'reversed';
        ALTER TABLE commissions ADD COLUMN app_transaction_id TEXT;
        ALTER TABLE commissions ADD COLUMN billing_plan_type TEXT;
        ALTER TABLE commissions ADD COLUMN billing_period_number BIGINT;
        ALTER TABLE commissions ADD COLUMN total_billing_periods BIGINT;
        ALTER TABLE commissions ADD COLUMN commitment_expires_at BIGINT;
        ALTER TABLE commissions ADD COLUMN committed_amount BIGINT;
        CREATE INDEX commissions_by_app_transaction ON commissions (app_transaction_id) WHERE app_transaction_id IS NOT NULL;
        CREATE TABLE app_store_rescinded (
            app_id TEXT NOT NULL,
            app_transaction_hash TEXT NOT NULL,
            rescinded_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, app_transaction_hash)
        );
        CREATE INDEX installs_by_app_transaction ON installs (app_id, app_transaction_id) WHERE app_transaction_id IS NOT NULL;
        CREATE INDEX app_account_tokens_by_install ON app_account_tokens (app_id, install_id) WHERE install_id IS NOT NULL;
        """

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
}
