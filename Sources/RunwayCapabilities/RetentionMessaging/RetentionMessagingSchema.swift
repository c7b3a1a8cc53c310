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
            """),
    ]
}
