import RunwayKit
import RunwayStore

/// Retention messages: where each subscription came from, the app's rules, its messages at Apple and every realtime
/// request answered. Append only: a released step never changes.
enum RetentionMessagingSchema {
    static let migrations: [Migration] = [
        Migration(id: "0052_retention_messaging", sql: """
            CREATE TABLE app_store_subscriptions (
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                product_id TEXT,
                app_account_token TEXT,
                affiliate_id TEXT,
                program_id TEXT,
                install_id TEXT,
                link_id TEXT,
                campaign TEXT,
                source TEXT NOT NULL,
                auto_renew_off_at BIGINT,
                auto_renew_on_at BIGINT,
                renewed_at BIGINT,
                expired_at BIGINT,
                updated_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, environment, original_transaction_id)
            );
            CREATE INDEX app_store_subscriptions_by_install ON app_store_subscriptions (app_id, install_id) WHERE install_id IS NOT NULL;
            CREATE TABLE retention_rule_sets (
                app_id TEXT PRIMARY KEY REFERENCES apps (id),
                rules TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            );
            CREATE TABLE retention_messages (
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                message_id TEXT NOT NULL,
                header TEXT,
                body TEXT,
                image_id TEXT,
                alt_text TEXT,
                state TEXT,
                listed BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, environment, message_id)
            );
            CREATE TABLE retention_requests (
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                request_id TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                product_id TEXT NOT NULL,
                locale TEXT NOT NULL,
                source TEXT NOT NULL,
                rule TEXT NOT NULL,
                message_id TEXT,
                late BIGINT NOT NULL,
                elapsed_micros BIGINT NOT NULL,
                requested_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, environment, request_id)
            );
            CREATE INDEX retention_requests_by_time ON retention_requests (app_id, requested_at);
            -- Subscriptions that earned a commission before this step came through their bind's affiliate (the
            -- oldest commission's bind, as later payments are credited); the rest are known from their next
            -- notification on.
            INSERT INTO app_store_subscriptions (app_id, environment, original_transaction_id, app_account_token, affiliate_id, program_id,
                                                 install_id, link_id, campaign, source, updated_at)
            SELECT t.app_id, CASE WHEN c.test = 1 THEN 'sandbox' ELSE 'production' END, c.original_transaction_id, c.app_account_token,
                   c.affiliate_id, c.program_id, t.install_id, i.link_id, i.campaign, 'affiliate', c.created_at
            FROM commissions c
            JOIN app_account_tokens t ON t.token = c.app_account_token
            LEFT JOIN installs i ON i.app_id = t.app_id AND i.install_id = t.install_id
            ORDER BY c.created_at, c.id
            ON CONFLICT (app_id, environment, original_transaction_id) DO NOTHING;
            """),
    ]
}
